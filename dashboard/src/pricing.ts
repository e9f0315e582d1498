// The API's standard prices in display credits (decisions §3: 0.002 stored credits for a lead
// created with validation or validated again). The API does not publish its prices, so an
// operator's PRICE_* overrides are not seen here: estimates say "at the standard prices", and the
// API's 402 (with the real cost) still guards every charge.
export const PRICES = {
  leadValidation: 2,
  leadCreateWithValidation: 2,
  check: 1,
} as const;
