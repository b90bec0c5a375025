/** Injection token of the issuer's public URL (`{PUBLIC_BASE_URL}/auth/realms/agent-cloud`). */
export const ISSUER_URL = Symbol('ISSUER_URL');
