/**
 * Item 12 of issue 24: typing in a Weighting field of the Target Set Edit page, on a 32-row and
 * on a 1-row IP list — time from each keydown to the next paint, p95 of each list and their
 * ratio. The rounds alternate (32, 1, 32, 1) so that both lists see the same machine load.
 */
import os from 'node:os';
import type { Page } from '@playwright/test';
import { ok, type Oam } from '../lib/oam.ts';
import { median, percentile, round, sleep } from '../lib/stats.ts';

const ROUNDS = 2;
const KEYSTROKES_PER_ROUND = 20;
const WARMUP_KEYSTROKES = 2;
/** Between a keystroke's paint and the next keystroke: a fast typist's 10 keys a second. */
const TYPING_GAP_MS = 100;

/** What the in-page probe keeps of one keystroke. */
interface Stroke {
  ms: number;
  input: boolean;
}

/** The page's globals the probe uses (the DOM types are not this program's). */
interface ProbeWindow {
  __strokes: Stroke[];
  __frameMs: number[];
  document: {
    addEventListener(type: string, f: (e: { timeStamp: number }) => void, c: boolean): void;
  };
  requestAnimationFrame(f: () => void): void;
  MessageChannel: new () => {
    port1: { onmessage: (() => void) | null };
    port2: { postMessage(v: unknown): void };
  };
}

/**
 * Installed in every page before its scripts: at each keydown, the time from the event to the
 * task after the next animation frame (which follows that frame's paint), and whether an input
 * event (the value changed) came in between.
 */
const installProbe = () => {
  const w = globalThis as unknown as ProbeWindow;
  w.__strokes = [];
  w.__frameMs = [];
  let pending: { input: boolean } | null = null;
  w.document.addEventListener(
    'keydown',
    (event) => {
      const started = event.timeStamp;
      const stroke = { input: false };
      pending = stroke;
      w.requestAnimationFrame(() => {
        const channel = new w.MessageChannel();
        channel.port1.onmessage = () => {
          w.__strokes.push({ ms: performance.now() - started, input: stroke.input });
          if (pending === stroke) pending = null;
        };
        channel.port2.postMessage(0);
      });
    },
    true,
  );
  w.document.addEventListener(
    'input',
    () => {
      if (pending) pending.input = true;
    },
    true,
  );
};

/**
 * The page's frame interval (median of 60 animation frames): what the method resolves. A string,
 * so that the loader's helpers (tsx names inner functions) do not reach the page.
 */
const FRAME_INTERVAL = `new Promise((resolve) => {
  const times = [];
  const step = (t) => {
    times.push(t);
    if (times.length < 61) requestAnimationFrame(step);
    else {
      const gaps = times.slice(1).map((v, i) => v - times[i]).sort((a, b) => a - b);
      resolve(gaps[Math.floor(gaps.length / 2)]);
    }
  };
  requestAnimationFrame(step);
})`;

/**
 * The 1-row list: Target Set 32 on a server of its own (the schema refuses lists that partly
 * overlap), after the View part has measured it with 32 rows.
 */
export async function seedOneRowList(oam: Oam, prefix: string) {
  await ok(
    oam.post('/api/app-servers', { name: 'mp33', addresses: [`${prefix}.1.33`] }),
    'server mp33',
  );
  await ok(
    oam.edit('/api/target-sets/32', {
      family: 'ipv4',
      algorithm: 'leastLoad',
      primary: { address: `${prefix}.2.32`, activeIpfe: 'A2' },
      servers: [{ address: `${prefix}.1.33`, weight: 100, description: 'server 33' }],
    }),
    'target set 32 with one row',
  );
}

/** One round on a Target Set's Edit page: Backspace and 0 in turn (100 → 10 → 100 …). */
async function typeRound(page: Page, base: string, number: number, rows: number, row: number) {
  await page.goto(`${base}/target-sets/${number}/edit`);
  const weight = page.getByLabel(`Weighting, row ${row}`, { exact: true });
  await page.getByLabel(`Weighting, row ${rows}`, { exact: true }).waitFor();
  const shown = await page.locator('input[aria-label^="Weighting, row"]').count();
  if (shown !== rows) throw new Error(`Target Set ${number} shows ${shown} rows, not ${rows}`);
  await page.getByText('Loading the forwarding engine…').waitFor({ state: 'detached' });
  // Left once, as an operator correcting a weight has: from then on the field is checked as typed.
  await weight.fill('100');
  await weight.blur();
  await weight.focus();
  await page.evaluate(() => {
    (globalThis as unknown as ProbeWindow).__strokes = [];
  });
  const total = WARMUP_KEYSTROKES + KEYSTROKES_PER_ROUND;
  for (let i = 0; i < total; i++) {
    await page.keyboard.press(i % 2 === 0 ? 'Backspace' : '0');
    await page.waitForFunction(
      (n) => (globalThis as unknown as ProbeWindow).__strokes.length >= n,
      i + 1,
      { polling: 10 },
    );
    await sleep(TYPING_GAP_MS);
  }
  const strokes = await page.evaluate(() => (globalThis as unknown as ProbeWindow).__strokes);
  if (strokes.some((s) => !s.input))
    throw new Error(`a keystroke in Target Set ${number}'s Weighting field changed nothing`);
  const expected = total % 2 === 0 ? '100' : '10';
  const value = await weight.inputValue();
  if (value !== expected) throw new Error(`the Weighting field holds ${value}, not ${expected}`);
  return strokes.slice(WARMUP_KEYSTROKES).map((s) => s.ms);
}

export interface KeystrokeFigures {
  p95Ms: number | null;
  p95Ms1: number | null;
  ratio: number | null;
  p95Ms1Note?: string;
  ratioNote?: string;
}

/**
 * The figures of the two lists: a p95 within one frame is below what the method resolves (a
 * keystroke that costs nothing still waits for the next frame), and a ratio made from it means
 * nothing.
 */
export function keystrokeFigures(p95: number, p95One: number, frameMs: number): KeystrokeFigures {
  const figures: KeystrokeFigures = {
    p95Ms: round(p95, 1),
    p95Ms1: round(p95One, 1),
    ratio: round(p95 / p95One, 2),
  };
  if (p95One > frameMs) return figures;
  return {
    ...figures,
    p95Ms1: null,
    p95Ms1Note: `below resolution (one frame, ${round(frameMs, 1)} ms; p95 ${round(p95One, 1)})`,
    ratio: null,
    ratioNote: `1-row p95 within one frame: no ratio; the 32-row p95 is ${round(p95 / frameMs, 2)} frames`,
  };
}

/** Installs the probe in the page's context; call before the first navigation. */
export async function prepareKeystrokes(page: Page) {
  await page.addInitScript(installProbe);
}

export async function measureKeystrokes(
  page: Page,
  base: string,
  log: (line: string) => void,
): Promise<Record<string, unknown>> {
  const many: number[] = [];
  const one: number[] = [];
  const loads: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    loads.push(os.loadavg()[0]!);
    const a = await typeRound(page, base, 1, 32, 16);
    many.push(...a);
    loads.push(os.loadavg()[0]!);
    const b = await typeRound(page, base, 32, 1, 1);
    one.push(...b);
    log(
      `gui: keystroke to paint, round ${r + 1}: 32 rows p95 ${round(percentile(a, 95))} ms (median ${round(median(a))}), 1 row p95 ${round(percentile(b, 95))} ms (median ${round(median(b))}); load average ${os
        .loadavg()
        .map((l) => round(l, 2))
        .join(' / ')}`,
    );
  }
  const frameMs = (await page.evaluate(FRAME_INTERVAL)) as number;
  const figures = keystrokeFigures(percentile(many, 95), percentile(one, 95), frameMs);
  log(
    `gui: keystroke p95 32 rows ${figures.p95Ms} ms, 1 row ${figures.p95Ms1 ?? figures.p95Ms1Note} ms, ratio ${figures.ratio ?? figures.ratioNote}; frame ${round(frameMs, 1)} ms; load average ${os
      .loadavg()
      .map((l) => round(l, 2))
      .join(' / ')}`,
  );
  return {
    ipListKeystrokeP95Ms: figures.p95Ms,
    ipListKeystrokeP95Ms1: figures.p95Ms1,
    ...(figures.p95Ms1Note ? { ipListKeystrokeP95Ms1Note: figures.p95Ms1Note } : {}),
    ipListKeystrokeRatio: figures.ratio,
    ...(figures.ratioNote ? { ipListKeystrokeRatioNote: figures.ratioNote } : {}),
    ipListKeystroke: {
      medianMs: round(median(many), 1),
      medianMs1: round(median(one), 1),
      maxMs: round(Math.max(...many), 1),
      maxMs1: round(Math.max(...one), 1),
      keystrokes: many.length,
      keystrokes1: one.length,
      frameMs: round(frameMs, 1),
      loadAverage1mDuring: loads.map((l) => round(l, 2)),
      runsMs: many.map((v) => round(v, 1)),
      runsMs1: one.map((v) => round(v, 1)),
      method: `Target Set Edit page of the same build and server (after the View figures): Target Set 1 with 32 rows (31 other Target Sets list the same 32 servers), and Target Set 32 edited to 1 row on a 33rd server of its own; ${ROUNDS} rounds alternating 32 rows, 1 row; each round opens the page, waits for the change preview's engine, fills the Weighting field (row 16, or row 1) with 100 and leaves it and comes back (a field once left is checked as typed), then presses Backspace and 0 in turn (100 → 10 → 100), ${WARMUP_KEYSTROKES} keystrokes not counted, then ${KEYSTROKES_PER_ROUND}, ${TYPING_GAP_MS} ms after each one's paint; each keystroke is timed in the page from the keydown event's timeStamp to a MessageChannel task posted from the next requestAnimationFrame (the task after that frame's paint); every keystroke must have changed the field (an input event); p95 nearest rank; a p95 within one frame (the page's median frame interval) is below resolution`,
    },
  };
}
