export type { DnsEvidence } from "./dns-evidence.js";
export {
  MAX_WEBSITE_LENGTH,
  type NormalizedWebsite,
  normalizeWebsite,
  type WebsiteRejection,
} from "./normalize.js";
export { evaluateParked, PARKED_THRESHOLD, type ParkedEvidence, type ParkedVerdict } from "./parked.js";
export {
  DEFAULT_INDICATORS_PATH,
  loadParkingIndicators,
  type ParkingIndicators,
} from "./parking-indicators.js";
export { WebsiteEngine, type WebsiteEngineOptions } from "./website.engine.js";
export type * from "./website.types.js";
export { type WebsiteScore, type WebsiteScoreFactor, websiteScore } from "./website-score.js";
