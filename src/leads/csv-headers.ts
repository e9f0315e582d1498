// The CSV header spellings that map to lead fields, compared without case, spaces or punctuation
// ("First Name" = first_name). One table for the importer (lead-csv.ts) and the dashboard's
// Import preview, which imports this file, so the preview names the columns the API will take.
import type { LeadCreateInput } from "./leads.schemas.js";

export const MAX_IMPORT_ROWS = 10_000;

export const FIELD_BY_HEADER: Record<string, keyof LeadCreateInput> = {
  email: "email",
  emailaddress: "email",
  mail: "email",
  website: "website",
  domain: "website",
  url: "website",
  site: "website",
  firstname: "firstName",
  first: "firstName",
  givenname: "firstName",
  vorname: "firstName",
  lastname: "lastName",
  last: "lastName",
  surname: "lastName",
  familyname: "lastName",
  nachname: "lastName",
  company: "company",
  companyname: "company",
  firma: "company",
  unternehmen: "company",
  organization: "company",
  title: "title",
  jobtitle: "title",
  position: "title",
  phone: "phone",
  phonenumber: "phone",
  telephone: "phone",
  telefon: "phone",
  linkedin: "linkedIn",
  linkedinurl: "linkedIn",
  twitter: "twitter",
  campaign: "campaign",
  tags: "tags",
  notes: "notes",
  priority: "priority",
  leadservicecategory: "leadServiceCategory",
  category: "leadServiceCategory",
  leadservicesubcategory: "leadServiceSubcategory",
  subcategory: "leadServiceSubcategory",
};

export const headerKey = (h: string) => h.toLowerCase().replace(/[^a-z0-9]/g, "");
