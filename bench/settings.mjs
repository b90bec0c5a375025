// @ts-check
/** The benchmark's knobs (BENCH_* variables), its targets and the paths it calls. */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const env = process.env;
/**
 * The scenario groups a run measures (BENCH_ONLY, comma-separated; unset: all). A name selects the
 * groups it names or that start with it and a dash: `wallet` is the three wallet groups.
 */
export const groups = [
  'did',
  'tenants',
  'credentials',
  'webhooks',
  'wallet-endpoints',
  'wallet-scale',
  'wallet-nginx',
  'peers',
  'scale',
];

export const settings = {
  duration: positive('BENCH_DURATION', 10),
  warmup: positive('BENCH_WARMUP', 2, true),
  slices: positive('BENCH_SLICES', 4),
  connections: positive('BENCH_CONNECTIONS', 32),
  tenants: positive('BENCH_TENANTS', 100),
  freshTokens: positive('BENCH_FRESH_TOKENS', 1500),
  scaleTenants: positive('BENCH_SCALE_TENANTS', 100_000, true),
  deepPage: positive('BENCH_DEEP_PAGE', 4000, true),
  scaleCredentials: positive('BENCH_SCALE_CREDENTIALS', 100_000, true),
  pageSize: 20,
  only: only(),
  walletFormats: walletFormats(),
};
export const target = env.BENCH_TARGET?.replace(/\/$/, '') || undefined;
/** Every id this run makes starts with it, so that a run against a shared database can clean up. */
export const runPrefix = `bench${Date.now().toString(36)}`;
export const apiPath = '/ctrl/api/v1.0';

export const targets = {
  didThroughputRatio: 0.8,
  didP99Ratio: 2,
  credentialThroughputRatio: 0.8,
  credentialP99Ratio: 2,
  /** Issue with a revocation entry against issue without one, in the same run. */
  statusEntryRatio: 0.85,
  /** The deep page of GET /tenants against page 0. */
  deepPageRatio: 0.8,
  // An aim, not a promise: the credential endpoint against a bare server doing its essential work.
  credentialEndpointRatio: 0.5,
  // The same kind of aim for the OpenID4VP response endpoint against a bare verifier.
  responseEndpointRatio: 0.5,
  credentialEndpointP99Ratio: 3,
  responseEndpointP99Ratio: 3,
  /** Complete pre-authorized issuances (offer, token, nonce, credential) a second. */
  issuancesPerSecond: 150,
  /** The credential endpoint with more tenants issuing, or more issued, against one tenant's. */
  walletScalingRatio: 0.9,
  webhookEventsPerSecond: 1000,
  createPerSecond: 300,
  serviceRssMb: 250,
};

function only() {
  const raw = env.BENCH_ONLY?.trim();
  if (!raw) return new Set(groups);
  const chosen = new Set();
  for (const name of raw.split(',').map((part) => part.trim())) {
    const matching = groups.filter((group) => group === name || group.startsWith(`${name}-`));
    if (matching.length === 0) {
      throw new Error(`BENCH_ONLY: '${name}' is none of ${groups.join(', ')} (or 'wallet')`);
    }
    for (const group of matching) chosen.add(group);
  }
  return chosen;
}

/** The credential formats of the wallet-endpoints rows (BENCH_WALLET_FORMATS, comma-separated). */
function walletFormats() {
  const known = ['sd-jwt', 'mdoc'];
  const raw = env.BENCH_WALLET_FORMATS?.trim();
  if (!raw) return new Set(known);
  const chosen = new Set(raw.split(',').map((part) => part.trim()));
  for (const format of chosen) {
    if (!known.includes(format)) {
      throw new Error(`BENCH_WALLET_FORMATS: '${format}' is none of ${known.join(', ')}`);
    }
  }
  return chosen;
}

/** @param {string} group one of `groups` */
export function selected(group) {
  return settings.only.has(group);
}

function positive(name, fallback, zeroAllowed = false) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < (zeroAllowed ? 0 : 1)) {
    throw new Error(`${name} must be a whole number${zeroAllowed ? '' : ' above 0'}, not '${raw}'`);
  }
  return value;
}

export function log(message) {
  process.stderr.write(`[bench] ${message}\n`);
}
