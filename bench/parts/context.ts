export interface PartContext {
  /** One progress line (stderr, so that the summary on stdout stays clean). */
  log(line: string): void;
  /** `BENCH_QUICK=1`: fewer rounds and shorter runs, for trying the benchmark out. */
  quick: boolean;
}
