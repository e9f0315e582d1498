// Recurring jobs, one loop for all: a definition that carries `recurring` is started once per
// queue start (deduplicated across processes by its singleton key), and each of its runs queues
// the next one `everyMs` later, in a `finally` and from onExhausted, so neither a failed run nor
// a given-up one ends the chain. The queue has no cron; this is its stand-in.
import { Value } from "@sinclair/typebox/value";
import type { JobDefinition } from "./catalog.js";
import type { JobData, JobQueue } from "./job-queue.js";

const keyOf = (name: string) => `${name}:recurring`;

function isRecurringRun(definition: JobDefinition, data: JobData): boolean {
  return Value.Equal(data, definition.recurring?.data ?? {});
}

/** The catalog with each recurring definition's handler and onExhausted queueing its next run. */
export function withRecurrence(queue: JobQueue, catalog: readonly JobDefinition[]): JobDefinition[] {
  return catalog.map((definition) => {
    const { recurring } = definition;
    if (!recurring) return definition;
    const next = async (data: JobData) => {
      if (!isRecurringRun(definition, data)) return;
      await queue.send(definition.name, recurring.data ?? {}, {
        startAfterMs: recurring.everyMs,
        singletonKey: keyOf(definition.name),
      });
    };
    const { handler, onExhausted } = definition;
    return {
      ...definition,
      handler: async (job) => {
        try {
          await handler(job);
        } finally {
          await next(job.data);
        }
      },
      onExhausted: async (job) => {
        try {
          await onExhausted?.(job);
        } finally {
          await next(job.data);
        }
      },
    };
  });
}

/** Queues the first run of every recurring job unless one is already waiting. */
export async function scheduleRecurring(queue: JobQueue, catalog: readonly JobDefinition[]): Promise<void> {
  for (const { name, recurring } of catalog) {
    if (!recurring) continue;
    await queue.send(name, recurring.data ?? {}, {
      startAfterMs: recurring.firstAfterMs ?? recurring.everyMs,
      singletonKey: keyOf(name),
    });
  }
}
