/** api.md, Tenant: 1-64 characters, case-sensitive, immutable. */
export const tenantIdPattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export const tenantIdRule = '1-64 characters of A-Z a-z 0-9 _ . -, starting with a letter or digit';
