// Schemas of sign-in: the request bodies and the new session's answer.
import { ref } from './common';

const str = { type: 'string' };

export const sessionSchemas = {
  SignInCodeRequest: {
    type: 'object',
    required: ['email'],
    properties: {
      email: { type: 'string', maxLength: 320, description: 'Where the code is mailed (trimmed, lower-cased).' },
    },
  },
  SignInRequest: {
    type: 'object',
    required: ['email', 'code'],
    properties: {
      email: { type: 'string', maxLength: 320 },
      code: { type: 'string', description: 'The 8-digit code from the mail.' },
    },
  },
  SignInCodeAccepted: {
    type: 'object',
    additionalProperties: false,
    properties: {},
    description: 'Always empty, whatever the email.',
  },
  NewSession: {
    type: 'object',
    required: ['user', 'org', 'member', 'expiresAt'],
    properties: {
      user: { type: 'object', required: ['id', 'email'], properties: { id: str, email: str } },
      org: {
        oneOf: [ref('Org'), { type: 'null' }],
        description: 'null until an invitation is accepted (a new email creates a user without organization).',
      },
      member: {
        oneOf: [
          {
            type: 'object',
            required: ['id', 'role', 'joinedAt'],
            properties: { id: str, role: ref('Role'), joinedAt: { type: 'string', format: 'date-time' } },
          },
          { type: 'null' },
        ],
      },
      expiresAt: {
        type: 'string',
        format: 'date-time',
        description: 'Absolute end of the session (30 days); it also ends after 7 days without use.',
      },
    },
  },
};
