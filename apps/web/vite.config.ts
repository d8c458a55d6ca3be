import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

/** `npm run dev -w @ipfe/web`: the GUI on Vite, the API proxied to the OAM server on :8080. */
export default defineConfig({
  plugins: [react()],
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  server: {
    port: 5173,
    proxy: { '/api': { target: 'http://127.0.0.1:8080', changeOrigin: false } },
  },
  // Split by page (src/app/router.tsx); what the first page loads is `npm run bench:gui`'s
  // initialJsGzipKB. Vite's default 500 kB warning stays: no chunk should come near it again.
  build: { outDir: 'dist', sourcemap: true },
});
