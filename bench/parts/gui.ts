/**
 * Part 5 of issue 8: the Target Sets View page with 32 Target Sets × 32 servers in Chromium —
 * time from navigation start to the last Target Set's IP list being visible, median of 10 — and
 * the built GUI's JavaScript, gzipped; then typing in the Edit page's IP list (gui-keystrokes.ts).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';
import { ADMIN_PASSWORD, startApiServer } from '../lib/api-process.ts';
import { onCleanup } from '../lib/cleanup.ts';
import { login, seed32x32 } from '../lib/oam.ts';
import { ROOT } from '../lib/results.ts';
import { median, round } from '../lib/stats.ts';
import type { PartContext } from './context.ts';
import { measureKeystrokes, prepareKeystrokes, seedOneRowList } from './gui-keystrokes.ts';

const HOST = '127.70.4.1';
const NAVIGATIONS = 10;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The little of the page's DOM that the probe below reads (the DOM types are not this program's). */
interface Element {
  querySelector(selector: string): Element | null;
  querySelectorAll(selector: string): ArrayLike<Element>;
  textContent: string | null;
  getBoundingClientRect(): { width: number; height: number };
}

/**
 * Run in the page every animation frame: false until the 32nd IP list is rendered with its 32
 * rows and a box, then the timings, in ms from navigation start.
 */
const visible = () => {
  const page = globalThis as unknown as { document: Element };
  const last = Array.from(page.document.querySelectorAll('table')).find(
    (t) => t.querySelector('caption')?.textContent?.trim() === 'IP list of Target Set 32',
  );
  if (!last || last.querySelectorAll('tbody tr').length < 32) return false;
  const box = last.getBoundingClientRect();
  if (box.width === 0 || box.height === 0) return false;
  const at = performance.now();
  const nav = performance.getEntriesByType('navigation' as 'mark')[0] as unknown as
    { domContentLoadedEventEnd: number } | undefined;
  const list = performance
    .getEntriesByType('resource')
    .filter((e) => /\/api\/target-sets$/.test(e.name))
    .at(-1) as unknown as { startTime: number; responseEnd: number } | undefined;
  return {
    visible: at,
    domContentLoaded: nav ? nav.domContentLoadedEventEnd : null,
    listRequested: list ? list.startTime : null,
    listReceived: list ? list.responseEnd : null,
  };
};

interface Timing {
  visible: number;
  domContentLoaded: number | null;
  listRequested: number | null;
  listReceived: number | null;
}

/** `vite build` of apps/web into a folder of our own (others' builds write apps/web/dist). */
function build(outDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'npm',
      ['run', 'build', '-w', '@ipfe/web', '--', '--outDir', outDir, '--emptyOutDir'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out = (out + d).slice(-3000)));
    child.stderr.on('data', (d: Buffer) => (out = (out + d).slice(-3000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`the GUI build failed (${code}): ${out.trim()}`));
    });
  });
}

function javascript(dir: string): { file: string; bytes: number; gzipBytes: number }[] {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(m?js)$/.test(entry.name)) files.push(path);
    }
  };
  walk(dir);
  return files.map((file) => {
    const content = readFileSync(file);
    return {
      file: file.slice(dir.length + 1),
      bytes: content.length,
      gzipBytes: gzipSync(content, { level: 9 }).length,
    };
  });
}

/**
 * The JavaScript the first page loads before it can render: the built index.html's entry script
 * and the chunks it preloads (its static imports). Chunks behind a dynamic import — the other
 * pages, the Target Set form, the change preview's engine — load only when opened.
 */
function initialJavascript(dir: string, js: { file: string; gzipBytes: number }[]) {
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  const tags = [
    ...html.matchAll(/<script\b[^>]*\btype="module"[^>]*\bsrc="([^"]+)"/g),
    ...html.matchAll(/<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+)"/g),
  ];
  const files = [...new Set(tags.map((m) => m[1]!.replace(/^\//, '')))];
  if (files.length === 0) throw new Error('the built index.html names no module script');
  return files.map((file) => {
    const found = js.find((f) => f.file === file);
    if (!found) throw new Error(`index.html loads ${file}, which the build does not hold`);
    return found;
  });
}

export async function runGui(ctx: PartContext): Promise<Record<string, unknown>> {
  if (!existsSync(CHROMIUM))
    return {
      skipped: `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or CHROMIUM_PATH)`,
    };
  const outDir = mkdtempSync(join(tmpdir(), 'ipfe-bench-web-'));
  const removeDir = onCleanup('gui build folder', () =>
    rmSync(outDir, { recursive: true, force: true }),
  );
  try {
    const buildStarted = Date.now();
    await build(outDir);
    ctx.log(`gui: built in ${round((Date.now() - buildStarted) / 1000)} s`);
    const js = javascript(outDir);
    const bundleGzipKB = js.reduce((a, f) => a + f.gzipBytes, 0) / 1024;
    const initialJs = initialJavascript(outDir, js);
    const initialJsGzipKB = initialJs.reduce((a, f) => a + f.gzipBytes, 0) / 1024;

    const server = await startApiServer({
      host: HOST,
      port: 18280,
      barePort: 18281,
      webRoot: outDir,
    });
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--headless',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    const closeBrowser = onCleanup('chromium', () => {
      void browser.close();
    });
    try {
      const oam = await login(server.base, 'admin', ADMIN_PASSWORD);
      await seed32x32(oam, '127.70');
      const [name, value] = oam.cookie.split('=') as [string, string];
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addCookies([{ name, value, domain: HOST, path: '/' }]);
      const page = await context.newPage();
      const url = `${server.base}/target-sets`;
      /** ms from navigation start (the page's time origin) to the last IP list being visible. */
      // Chromium's own counters of the renderer's main thread (cumulative seconds), read around
      // each navigation: how much of it was script, style and layout.
      const cdp = await context.newCDPSession(page);
      await cdp.send('Performance.enable');
      const counters = async () => {
        const { metrics } = await cdp.send('Performance.getMetrics');
        const get = (name: string) => (metrics.find((m) => m.name === name)?.value ?? 0) * 1000;
        return {
          script: get('ScriptDuration'),
          style: get('RecalcStyleDuration'),
          layout: get('LayoutDuration'),
          task: get('TaskDuration'),
        };
      };
      const work: { script: number; style: number; layout: number; task: number }[] = [];
      const navigate = async () => {
        const before = await counters();
        await page.goto(url, { waitUntil: 'commit' });
        const handle = await page.waitForFunction(visible, null, {
          polling: 'raf',
          timeout: 20_000,
        });
        const timing = (await handle.jsonValue()) as Timing;
        const after = await counters();
        work.push({
          script: after.script - before.script,
          style: after.style - before.style,
          layout: after.layout - before.layout,
          task: after.task - before.task,
        });
        return timing;
      };
      const cold = await navigate();
      work.length = 0;
      const timings: Timing[] = [];
      for (let i = 0; i < NAVIGATIONS; i++) timings.push(await navigate());
      const times = timings.map((t) => t.visible);
      const coldMs = cold.visible;
      const phase = (f: (t: Timing) => number | null) => {
        const values = timings.map(f).filter((v): v is number => v !== null);
        return values.length === timings.length ? round(median(values), 1) : null;
      };
      const lists = await page
        .locator('caption', { hasText: /^IP list of Target Set \d+$/ })
        .count();
      if (lists !== 32) throw new Error(`the View shows ${lists} IP lists, not 32`);
      await seedOneRowList(oam, '127.70');
      await prepareKeystrokes(page);
      const keystrokes = await measureKeystrokes(page, server.base, ctx.log);
      ctx.log(
        `gui: View ${times.map((t) => round(t)).join(', ')} ms; JS ${round(bundleGzipKB)} KB gzipped, ${round(initialJsGzipKB)} KB of it for the first page`,
      );
      return {
        viewMedianMs: round(median(times), 1),
        ...keystrokes,
        bundleGzipKB: round(bundleGzipKB, 1),
        initialJsGzipKB: round(initialJsGzipKB, 1),
        initialJsFiles: initialJs.map((f) => f.file),
        viewColdMs: round(coldMs, 1),
        viewMinMs: round(Math.min(...times), 1),
        viewMaxMs: round(Math.max(...times), 1),
        viewRunsMs: times.map((t) => round(t, 1)),
        rendererMainThreadMedianMs: {
          note: 'Chromium Performance.getMetrics around each navigation (the renderer’s main thread; includes the polling probe)',
          script: round(median(work.map((w) => w.script)), 1),
          style: round(median(work.map((w) => w.style)), 1),
          layout: round(median(work.map((w) => w.layout)), 1),
          allTasks: round(median(work.map((w) => w.task)), 1),
        },
        phasesMedianMs: {
          domContentLoaded: phase((t) => t.domContentLoaded),
          targetSetsRequested: phase((t) => t.listRequested),
          targetSetsReceived: phase((t) => t.listReceived),
          targetSetsFetch: phase((t) =>
            t.listReceived === null || t.listRequested === null
              ? null
              : t.listReceived - t.listRequested,
          ),
          receivedToVisible: phase((t) =>
            t.listReceived === null ? null : t.visible - t.listReceived,
          ),
        },
        bundleBytes: js.reduce((a, f) => a + f.bytes, 0),
        javascriptFiles: js.map((f) => ({ ...f, gzipKB: round(f.gzipBytes / 1024, 1) })),
        method: `vite build of apps/web (production); the real API serving it (temporary SQLite, 32 Least Load Target Sets × 32 servers, agent sync off); Debian Chromium headless via Playwright, 1280×800, logged in as admin; one cold navigation, then ${NAVIGATIONS} full navigations to /target-sets (page.goto), each timed in the page from navigation start (performance time origin) to the 32nd IP list table rendered with its 32 rows and a non-empty box (checked every animation frame); bundle = every .js file of the build, gzip level 9; initial JS = the module script and modulepreload links of the built index.html (what the first page, the login or the Target Sets View, loads before rendering), gzip level 9`,
      };
    } finally {
      await browser.close().catch(() => undefined);
      closeBrowser();
      await server.stop();
    }
  } finally {
    removeDir();
  }
}
