#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so that the repository needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
