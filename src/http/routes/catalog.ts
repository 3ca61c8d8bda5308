import { Type } from 'typebox';
import { browseCatalog, catalogWorker } from '../../domain/workers/catalog.js';
import { pageView } from '../pageView.js';
import { AGENT_SECURITY, type Routes } from '../routeTypes.js';
import { errors, IdParam, NextCursor } from '../schemas/common.js';
import { CatalogQuery, WorkerDetail, WorkerListEntry } from '../schemas/worker.js';
import { workerDetailView, workerListEntryView } from '../views.js';

const tags = ['Workers catalog'];
const security = AGENT_SECURITY;

export const catalogRoutes: Routes = async (app, { ctx }) => {
  app.get(
    '/agents/workers',
    {
      schema: {
        tags,
        security,
        operationId: 'searchWorkers',
        summary: 'Workers you can hire: with a wallet, a headline and skills; most completed tasks first',
        description:
          'A test key (hr_test_...) never sees real people: its list is empty (test mode has no simulated workers yet) and GET /agents/workers/{id} answers 404.',
        querystring: CatalogQuery,
        response: {
          200: Type.Object({
            workers: Type.Array(WorkerListEntry),
            nextCursor: NextCursor,
            hasMore: Type.Boolean(),
            total: Type.Integer({ description: 'Workers matching the filters, over all pages' }),
          }),
          ...errors(400, 401),
        },
      },
    },
    async (request) => {
      const result = await browseCatalog(ctx, request.query, request.apiKey?.livemode ?? true);
      return { ...pageView(result, 'workers', workerListEntryView), total: result.total };
    },
  );

  app.get(
    '/agents/workers/:id',
    {
      schema: {
        tags,
        security,
        operationId: 'getWorker',
        summary: 'One worker’s full profile',
        params: IdParam,
        response: { 200: Type.Object({ worker: WorkerDetail }), ...errors(401, 404) },
      },
    },
    async (request) => ({
      worker: workerDetailView(await catalogWorker(ctx, request.params.id, request.apiKey?.livemode ?? true)),
    }),
  );
};
