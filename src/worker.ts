// The worker side: starts the handlers of every job queue of the catalog. `serve` runs it
// embedded; `leadcheck worker` runs it alone for scale-out.
import type { Services } from "./main.js";

export async function registerWorkers(services: Services): Promise<void> {
  for (const job of services.jobCatalog) {
    const onExhausted = job.onExhausted ? { onExhausted: job.onExhausted } : {};
    await services.queue.work(job.name, { concurrency: job.concurrency, ...onExhausted }, job.handler);
  }
}
