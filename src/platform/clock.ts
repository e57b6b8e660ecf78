/** Time, injected so that tests control expiry and schedules. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  #now: Date;
  constructor(start: Date = new Date('2026-01-01T00:00:00Z')) {
    this.#now = new Date(start);
  }
  now(): Date {
    return new Date(this.#now);
  }
  advance(milliseconds: number): void {
    this.#now = new Date(this.#now.getTime() + milliseconds);
  }
  set(to: Date): void {
    this.#now = new Date(to);
  }
}
