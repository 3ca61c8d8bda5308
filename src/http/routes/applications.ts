import { Type } from 'typebox';
import { acceptApplication, listApplications } from '../../domain/tasks/applications.js';
import { getTaskRatings, rateWorker } from '../../domain/trust/ratings.js';
import { SHORT_BODY_LIMIT_BYTES } from '../bodyLimits.js';
import { sendIdempotent } from '../idempotency.js';
import { pageView } from '../pageView.js';
import { AGENT_SECURITY, type Routes } from '../routeTypes.js';
import { errors, IdParam, NextCursor } from '../schemas/common.js';
import {
  AcceptApplicationBody,
  Application,
  ApplicationStatus,
  RateBody,
  Rating,
  WorkerRef,
} from '../schemas/task.js';
import { acceptedView, applicationView, ratingView } from '../views.js';

const security = AGENT_SECURITY;

export const applicationRoutes: Routes = async (app, { ctx }) => {
  app.get(
    '/tasks/:id/applications',
    {
      schema: {
        tags: ['Applications'],
        security,
        operationId: 'listApplications',
        summary: 'Applications to your task, newest first',
        params: IdParam,
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
          cursor: Type.Optional(Type.String({ maxLength: 400 })),
        }),
        response: {
          200: Type.Object({
            applications: Type.Array(Application),
            nextCursor: NextCursor,
            hasMore: Type.Boolean(),
          }),
          ...errors(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const result = await listApplications(ctx, request.agentId, request.params.id, request.query);
      return pageView(result, 'applications', applicationView);
    },
  );

  app.patch(
    '/applications/:id',
    {
      bodyLimit: SHORT_BODY_LIMIT_BYTES,
      schema: {
        tags: ['Applications'],
        security,
        operationId: 'acceptApplication',
        summary: 'Accept an application: the task is assigned, a chat opens, other applications are rejected',
        params: IdParam,
        body: AcceptApplicationBody,
        response: {
          200: Type.Object({
            application: Type.Object({ id: Type.String(), status: ApplicationStatus, user: WorkerRef }),
            chat: Type.Object({ id: Type.String() }),
            message: Type.String(),
          }),
          ...errors(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) =>
      sendIdempotent(
        request,
        reply,
        ctx,
        (c) => acceptApplication(c, request.agentId, request.params.id),
        (result) => ({ status: 200, body: acceptedView(result) }),
      ),
  );

  app.post(
    '/tasks/:id/rate',
    {
      bodyLimit: SHORT_BODY_LIMIT_BYTES,
      schema: {
        tags: ['Ratings'],
        security,
        operationId: 'rateWorker',
        summary: 'Rate the worker of your completed task (once)',
        params: IdParam,
        body: RateBody,
        response: { 201: Type.Object({ rating: Rating }), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      sendIdempotent(
        request,
        reply,
        ctx,
        (c) => rateWorker(c, request.agentId, request.params.id, request.body),
        (rating) => ({ status: 201, body: { rating: ratingView(rating) } }),
      ),
  );

  app.get(
    '/tasks/:id/ratings',
    {
      schema: {
        tags: ['Ratings'],
        security,
        operationId: 'getTaskRatings',
        summary: 'Both sides’ ratings of a task; null for a side that has not rated',
        params: IdParam,
        response: {
          200: Type.Object({
            agentRating: Type.Union([Rating, Type.Null()]),
            workerRating: Type.Union([Rating, Type.Null()]),
          }),
          ...errors(401, 403, 404),
        },
      },
    },
    async (request) => {
      const { agentRating, workerRating } = await getTaskRatings(ctx, request.agentId, request.params.id);
      return {
        agentRating: agentRating ? ratingView(agentRating) : null,
        workerRating: workerRating ? ratingView(workerRating) : null,
      };
    },
  );
};
