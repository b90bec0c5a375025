import { recordJson } from './record-json.js';

describe(recordJson.name, () => {
  it('writes bytea as hex, times as ISO text, and leaves jsonb values and nulls as they are', () => {
    // Column names as the metadata gives them: here the properties' own.
    const metadata = {
      name: 'Row',
      findColumnWithPropertyName: (property: string) => ({ databaseName: property }),
    } as unknown as Parameters<typeof recordJson>[0];
    const json = recordJson(metadata, {
      id: 'a',
      hash: Buffer.from([0, 255]),
      at: new Date(Date.UTC(2026, 10, 29)),
      query: { credentials: [{ id: 'x', data: [1] }] },
      none: null,
    });
    expect(JSON.parse(json)).toEqual({
      id: 'a',
      hash: '\\x00ff',
      at: '2026-11-29T00:00:00.000Z',
      query: { credentials: [{ id: 'x', data: [1] }] },
      none: null,
    });
  });
});
