// One batch at its own address (/batches/<id>), the page a bulk validation links to: its live
// progress, then its results page by page with a CSV download.
import { BatchProgress } from "../components/batch-progress.js";
import { Link } from "../router.js";

export function BatchPage({ batchId }: { batchId: string }) {
  return (
    <section aria-labelledby="batch-page-title">
      <p>
        <Link to="/leads">← Leads</Link>
      </p>
      <h1 id="batch-page-title">Batch</h1>
      <BatchProgress batchId={batchId} />
    </section>
  );
}
