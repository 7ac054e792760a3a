// Server-Timing (https://www.w3.org/TR/server-timing/): where an upload's time went, for operators and benchmarks.
import type { Context } from 'koa';

export class Timing {
  constructor(private last = performance.now()) {}
  private readonly marks: string[] = [];
  mark(name: string): void {
    const now = performance.now();
    this.marks.push(`${name};dur=${(now - this.last).toFixed(1)}`);
    this.last = now;
  }
  write(ctx: Context): void {
    ctx.set('Server-Timing', this.marks.join(', '));
  }
}
