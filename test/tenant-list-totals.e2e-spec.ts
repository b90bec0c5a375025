import { startTestService, type TestService } from './support/test-service.js';

interface Page {
  content: { id: string }[];
  totalElements: number;
  totalPages: number;
}

/** Totals of unfiltered pages, including pages past the end (a regression the property tests found). */
describe('tenant list totals', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
    for (const id of ['t1', 't2', 't3', 't4', 't5']) {
      const created = await service.request('/ctrl/api/v1.0/tenants/create', {
        method: 'POST',
        query: { id, label: id },
      });
      expect(created.status).toBe(201);
    }
  });
  afterAll(async () => {
    await service.close();
  });

  it.each([
    ['the first page', '0', 2],
    ['the last, partly filled page', '2', 1],
    ['a page just past the end', '3', 0],
    ['a page far past the end', '40', 0],
  ])('reports the exact total on %s', async (_case, page, rows) => {
    const response = await service.request<Page>('/ctrl/api/v1.0/tenants', {
      query: { page, size: '2' },
    });
    expect(response.status).toBe(200);
    expect(response.body.content).toHaveLength(rows);
    expect(response.body.totalElements).toBe(5);
    expect(response.body.totalPages).toBe(3);
  });
});
