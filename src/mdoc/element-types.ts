/** How an element's value is encoded in CBOR (ISO/IEC 18013-5 §7.2.1; the EU PID rulebook). */
export type ElementType = 'full-date' | 'tdate' | 'bytes' | 'bool' | 'uint' | 'string';

const mdl: Record<string, ElementType> = {
  family_name: 'string',
  given_name: 'string',
  birth_date: 'full-date',
  issue_date: 'full-date',
  expiry_date: 'full-date',
  issuing_country: 'string',
  issuing_authority: 'string',
  document_number: 'string',
  portrait: 'bytes',
  un_distinguishing_sign: 'string',
  administrative_number: 'string',
  sex: 'uint',
  height: 'uint',
  weight: 'uint',
  eye_colour: 'string',
  hair_colour: 'string',
  birth_place: 'string',
  resident_address: 'string',
  portrait_capture_date: 'tdate',
  age_in_years: 'uint',
  age_birth_year: 'uint',
  issuing_jurisdiction: 'string',
  nationality: 'string',
  resident_city: 'string',
  resident_state: 'string',
  resident_postal_code: 'string',
  resident_country: 'string',
  family_name_national_character: 'string',
  given_name_national_character: 'string',
  signature_usual_mark: 'bytes',
};

const pid: Record<string, ElementType> = {
  family_name: 'string',
  given_name: 'string',
  birth_date: 'full-date',
  family_name_birth: 'string',
  given_name_birth: 'string',
  birth_place: 'string',
  resident_address: 'string',
  resident_country: 'string',
  resident_state: 'string',
  resident_city: 'string',
  resident_postal_code: 'string',
  resident_street: 'string',
  resident_house_number: 'string',
  sex: 'uint',
  age_in_years: 'uint',
  age_birth_year: 'uint',
  issuance_date: 'full-date',
  expiry_date: 'full-date',
  issuing_authority: 'string',
  document_number: 'string',
  issuing_country: 'string',
  issuing_jurisdiction: 'string',
  personal_administrative_number: 'string',
  portrait: 'bytes',
  email_address: 'string',
  mobile_phone_number: 'string',
};

/** The known elements of the mDL (ISO/IEC 18013-5 §7.2.1) and the EU PID namespaces. */
const known: Record<string, Record<string, ElementType>> = {
  'org.iso.18013.5.1': mdl,
  'eu.europa.ec.eudi.pid.1': pid,
};

/** The type of a known element; `age_over_NN` is a bool in both namespaces. */
export function elementType(namespace: string, element: string): ElementType | undefined {
  const table = known[namespace];
  if (table === undefined) return undefined;
  if (/^age_over_\d\d$/.test(element)) return 'bool';
  return Object.hasOwn(table, element) ? table[element] : undefined;
}

/** The mDL's `driving_privileges`: an array of maps whose `issue_date` and `expiry_date` are dates. */
export const drivingPrivileges = { namespace: 'org.iso.18013.5.1', element: 'driving_privileges' };
