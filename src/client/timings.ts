// Where a run's time goes, for `npm run bench` (SCANNER_TIMINGS=1 prints one JSON line on stderr at the end).
// "start" is the time from process start to the command's first line: node's own start plus loading the bundle.

export class Timings {
  private last = performance.now();
  readonly phases: Record<string, number> = { start: this.last };

  /** Ends the phase that ran since the previous mark. */
  mark(phase: string): void {
    const now = performance.now();
    this.phases[phase] = (this.phases[phase] ?? 0) + (now - this.last);
    this.last = now;
  }

  line(): string {
    return `scanner: timings ${JSON.stringify(Object.fromEntries(Object.entries(this.phases).map(([k, v]) => [k, Math.round(v * 10) / 10])))}\n`;
  }
}
