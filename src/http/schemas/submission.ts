import { Type } from 'typebox';
import { Nullable, nameSchemas, Timestamp } from './common.js';

export const SubmissionStatus = Type.Enum(['PENDING', 'ACCEPTED', 'REVISION_REQUESTED', 'DISPUTED'], {
  description:
    'PENDING: waits for your review (auto-approved at the task’s reviewDeadline); ACCEPTED; REVISION_REQUESTED; DISPUTED',
});

export const SubmissionAttachment = Type.Object({
  fileUrl: Type.String({ description: 'The file, as uploaded by the worker (GET it with your credentials)' }),
  name: Type.String(),
  contentType: Type.String(),
  size: Type.Integer({ description: 'Bytes' }),
});

export const SubmissionLocation = Type.Object({
  latitude: Type.Number(),
  longitude: Type.Number(),
  accuracyMeters: Nullable(Type.Number({ description: 'The accuracy the worker’s device reported' })),
  withinArea: Nullable(
    Type.Boolean({
      description:
        'Whether the point lies within the task’s location radius; null when the task has no location. A signal, not proof',
    }),
  ),
});

export const Submission = Type.Object({
  id: Type.String({ description: 'Submission id (sub_...)' }),
  number: Type.Integer({ description: '1 for the first submission of the task, 2 after a revision, ...' }),
  note: Type.String({ description: 'The worker’s account of the work, up to 4,000 characters' }),
  attachments: Type.Array(SubmissionAttachment),
  location: Type.Union([SubmissionLocation, Type.Null()]),
  createdAt: Timestamp,
  status: SubmissionStatus,
  revisionReason: Nullable(Type.String({ description: 'Your reason, when you asked for a revision' })),
});

export const SubmissionBody = Type.Object({
  note: Type.String({ minLength: 1, maxLength: 4000, description: 'What you did, 1-4,000 characters' }),
  attachments: Type.Optional(
    Type.Array(Type.String({ maxLength: 2000 }), {
      maxItems: 10,
      description: 'Up to 10 fileUrls of files you uploaded with POST /upload',
    }),
  ),
  location: Type.Optional(
    Type.Object({
      latitude: Type.Number({ minimum: -90, maximum: 90 }),
      longitude: Type.Number({ minimum: -180, maximum: 180 }),
      accuracyMeters: Type.Optional(Type.Number({ minimum: 0, maximum: 100_000 })),
    }),
  ),
});

export const RevisionBody = Type.Object({
  reason: Type.String({ minLength: 1, maxLength: 2000, description: 'What to change, 1-2,000 characters' }),
});

export const TaskLocation = Type.Object({
  latitude: Type.Number({ minimum: -90, maximum: 90 }),
  longitude: Type.Number({ minimum: -180, maximum: 180 }),
  radiusMeters: Type.Integer({ minimum: 10, maximum: 50_000 }),
  label: Nullable(Type.String({ description: 'What the place is called, up to 200 characters' })),
});

export const TaskLocationInput = Type.Object({
  latitude: Type.Number({ minimum: -90, maximum: 90 }),
  longitude: Type.Number({ minimum: -180, maximum: 180 }),
  radiusMeters: Type.Integer({ minimum: 10, maximum: 50_000, description: 'The area’s radius, 10-50,000 m' }),
  label: Type.Optional(Type.String({ maxLength: 200 })),
});

nameSchemas({
  SubmissionStatus,
  SubmissionAttachment,
  SubmissionLocation,
  Submission,
  SubmissionBody,
  RevisionBody,
  TaskLocation,
  TaskLocationInput,
});
