// The mailbox provider or mail gateway behind a domain, recognised from its MX host names.
export interface ServiceMatch {
  service: string;
  /** A filtering gateway in front of the real mailboxes: RCPT answers are less telling there. */
  isGateway: boolean;
}

interface ServicePattern {
  service: string;
  mx: RegExp;
  isGateway?: boolean;
  /** Consumer domains of the same provider get this name instead. */
  consumer?: { name: string; domains: RegExp };
}

const PATTERNS: readonly ServicePattern[] = [
  {
    service: "Google Workspace",
    mx: /(^|\.)(google\.com|googlemail\.com)$/,
    consumer: { name: "Gmail", domains: /^(gmail\.com|googlemail\.com)$/ },
  },
  { service: "Outlook.com", mx: /\.olc\.protection\.outlook\.com$|(^|\.)hotmail\.com$/ },
  { service: "Microsoft 365", mx: /\.mail\.protection\.outlook\.com$|\.outlook\.com$/ },
  { service: "Yahoo", mx: /(^|\.)yahoodns\.net$|(^|\.)yahoo\.com$/ },
  { service: "Zoho", mx: /(^|\.)zoho(mail)?\.(com|eu|in|com\.au|jp|com\.cn|sa|ca)$/ },
  { service: "iCloud", mx: /(^|\.)mail\.icloud\.com$|(^|\.)me\.com$/ },
  { service: "Proton Mail", mx: /(^|\.)protonmail\.ch$|(^|\.)proton\.me$/ },
  { service: "Fastmail", mx: /(^|\.)messagingengine\.com$/ },
  { service: "Yandex", mx: /(^|\.)yandex\.(net|ru)$/ },
  { service: "Mail.ru", mx: /(^|\.)mail\.ru$/ },
  { service: "GMX", mx: /(^|\.)gmx\.(net|com|de)$/ },
  { service: "WEB.DE", mx: /(^|\.)web\.de$/ },
  { service: "IONOS", mx: /(^|\.)(ionos\.(com|de|co\.uk|fr|es)|kundenserver\.de|1and1\.(com|de))$/ },
  { service: "GoDaddy", mx: /(^|\.)secureserver\.net$/ },
  { service: "Rackspace", mx: /(^|\.)emailsrvr\.com$/ },
  { service: "Namecheap Private Email", mx: /(^|\.)privateemail\.com$/ },
  { service: "OVHcloud", mx: /(^|\.)ovh\.net$/ },
  { service: "Amazon WorkMail", mx: /^inbound-smtp\.[a-z0-9-]+\.amazonaws\.com$/ },
  { service: "Tencent", mx: /(^|\.)qq\.com$/ },
  { service: "NetEase", mx: /(^|\.)(163|126)\.com$|(^|\.)netease\.com$/ },
  { service: "Proofpoint", mx: /(^|\.)(pphosted\.com|ppe-hosted\.com|proofpoint\.com)$/, isGateway: true },
  { service: "Mimecast", mx: /(^|\.)mimecast(-offshore)?\.(com|co\.za)$/, isGateway: true },
  { service: "Barracuda", mx: /(^|\.)barracudanetworks\.com$/, isGateway: true },
  { service: "Cisco Secure Email", mx: /(^|\.)iphmx\.com$/, isGateway: true },
  { service: "Sophos", mx: /(^|\.)sophos\.com$/, isGateway: true },
  { service: "Trend Micro", mx: /(^|\.)tmes\.trendmicro\.(com|eu)$/, isGateway: true },
  { service: "Broadcom Email Security", mx: /(^|\.)messagelabs\.com$/, isGateway: true },
  { service: "Forcepoint", mx: /(^|\.)mailcontrol\.com$/, isGateway: true },
  { service: "Hornetsecurity", mx: /(^|\.)hornetsecurity\.com$/, isGateway: true },
  { service: "SpamExperts", mx: /(^|\.)antispamcloud\.com$/, isGateway: true },
];

/** Decides from the most preferred MX host that matches a known pattern. */
export function detectService(domain: string, mxHosts: readonly string[]): ServiceMatch {
  for (const host of mxHosts) {
    const h = host.toLowerCase().replace(/\.$/, "");
    const p = PATTERNS.find((x) => x.mx.test(h));
    if (!p) continue;
    const name = p.consumer?.domains.test(domain.toLowerCase()) ? p.consumer.name : p.service;
    return { service: name, isGateway: p.isGateway === true };
  }
  return { service: mxHosts.length > 0 ? "Other" : "None", isGateway: false };
}
