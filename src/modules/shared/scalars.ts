import { GraphQLError } from 'graphql';
import { builder } from './builder.js';

builder.scalarType('DateTime', {
  description: 'An ISO 8601 timestamp in UTC, e.g. 2026-11-22T10:00:00.000Z.',
  serialize: (value) => value.toISOString(),
  parseValue: (value) => {
    const date = typeof value === 'string' ? new Date(value) : null;
    if (!date || Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 string');
    return date;
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value (object, array, string, number, boolean or null), answered as stored, e.g. an audit snapshot.',
  serialize: (value) => value,
  parseValue: (value) => value,
});
