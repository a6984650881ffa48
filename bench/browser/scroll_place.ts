/**
 * Whether scrolling up keeps the reader's place: wheel steps up over a point of the page,
 * each awaited until the scroll and whatever page it asked for have settled, reading which
 * conversation message is under the point and how far the one that was there moved.
 * Shared by the bench's scroll phases (`viewer_scroll.ts`) and the viewer test
 * `tests/viewer/scroll_anchor_tests.ts`. Measures positions, not time.
 *
 * @module
 */
/** What the probe needs of a playwright page. */
export interface WheelPage {
  evaluate<T, A>(fn: (arg: A) => T | Promise<T>, arg: A): Promise<T>;
  mouse: {
    move(x: number, y: number): Promise<void>;
    wheel(deltaX: number, deltaY: number): Promise<void>;
  };
  waitForTimeout(ms: number): Promise<void>;
}

/** Pixels per wheel step, and how far the message may move beyond them (rounding). */
export const STEP_PX = 100;
export const SLACK_PX = 40;

/** One wheel step's reading: the message under the point before and after. */
export interface StepReading {
  step: number;
  /** The id of the message under the point before and after the step ("" for none). */
  before: string;
  after: string;
  /** How far the message that was under the point moved down (NaN: it left the page). */
  moved: number;
}

/** Wheel up `steps` times over (x, y) and read each step. */
export async function wheelUp(
  page: WheelPage,
  x: number,
  y: number,
  steps: number,
): Promise<StepReading[]> {
  const under = () =>
    page.evaluate(([x, y]) => {
      // The point may fall in the gap between two messages: the nearest one around it.
      const item = [0, -12, 12].map((dy) =>
        document.elementFromPoint(x, y + dy)?.closest<HTMLElement>(".conv-item")
      ).find((found) => found);
      if (!item) return null;
      return { id: item.dataset.id!, top: item.getBoundingClientRect().top };
    }, [x, y]);
  const topOf = (id: string) =>
    page.evaluate((id) => {
      const item = document.querySelector<HTMLElement>(`.conv-item[data-id="${id}"]`);
      return item ? item.getBoundingClientRect().top : null;
    }, id);
  const readings: StepReading[] = [];
  await page.mouse.move(x, y);
  for (let step = 0; step < steps; step++) {
    const before = await under();
    if (!before) throw new Error(`no message under the pointer before step ${step}`);
    await page.mouse.wheel(0, -STEP_PX);
    // A slow reader: the scroll arrives (on a busy machine a wheel event can wait for the
    // main thread), then it and whatever page it asked for settle.
    for (let i = 0; i < 40 && (await topOf(before.id)) === before.top; i++) {
      await page.waitForTimeout(50);
    }
    let last = await topOf(before.id);
    for (let i = 0; i < 20; i++) {
      await page.waitForTimeout(150);
      const now = await topOf(before.id);
      if (now === last) break;
      last = now;
    }
    const after = await under();
    const top = await topOf(before.id);
    readings.push({
      step,
      before: before.id,
      after: after?.id ?? "",
      moved: top === null ? NaN : top - before.top,
    });
  }
  return readings;
}

/**
 * The steps on which the place was lost: the message under the point moved other than the
 * wheel did. A wheel event the busy browser delivered late (the step moved nothing) moves
 * the next step twice as far.
 */
export function placeLost(readings: StepReading[]): StepReading[] {
  let owed = 0;
  return readings.filter((r) => {
    const expected = STEP_PX * (1 + owed);
    if (Math.abs(r.moved) <= 1 && owed < 2) {
      owed++;
      return false;
    }
    owed = 0;
    return !(Math.abs(r.moved - expected) <= SLACK_PX);
  });
}

/** The readings as text, for a failure message or a bench note. */
export const describeSteps = (readings: StepReading[]): string =>
  readings.map((r) => `${r.step}: ${r.before}->${r.after} moved ${Math.round(r.moved)}`)
    .join("; ");
