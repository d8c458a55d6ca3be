#!/usr/bin/env node
// The agent's exit guard (src/exit-guard.ts): a process of its own that outlives the agent. Each
// line on stdin is the whole list of commands that undo what the agent holds in the kernel (its
// TSA addresses, its nftables table, its conntrackd), as JSON: [["ip", "addr", "del", …], …].
// When stdin ends without the agent having dismissed it (the agent died: SIGKILL, a crash, the
// OOM killer), the guard runs the last list, so that the mate alone holds the TSAs. Plain
// JavaScript on purpose: it starts in milliseconds and needs nothing but Node. Its argument is the
// state folder's copy of the list, removed once the list has run.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';

let commands = [];
let dismissed = false;
// A terminal's Ctrl-C or a process-group kill meant for the agent must not stop its guard.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => undefined);

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line === 'dismiss') {
    dismissed = true;
    return;
  }
  try {
    const parsed = JSON.parse(line);
    if (Array.isArray(parsed)) commands = parsed;
  } catch {
    // Only the agent writes here; a torn line is replaced by the next one.
  }
});
lines.on('close', () => {
  if (!dismissed) {
    for (const [file, ...args] of commands) {
      const result = spawnSync(file, args, { stdio: 'ignore', timeout: 5000 });
      console.error(
        `ipfe-agent-guard: the agent is gone; ${[file, ...args].join(' ')}: ${result.status === 0 ? 'done' : `exit ${result.status ?? result.error?.message}`}`,
      );
    }
    if (process.argv[2]) rmSync(process.argv[2], { force: true });
  }
  process.exit(0);
});
