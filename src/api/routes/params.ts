import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { Selector } from '../../model/status.js';
import { parseQuery } from '../../model/validation.js';

export interface NameParams {
  pipeline_name: string;
}

export const SelectorQuery = z.object({ selector: Selector.default('all') });

export const selectorOf = (query: unknown): Selector => parseQuery(SelectorQuery, query).selector;

/** `true`/`false` as query strings (also `1`/`0`); absent → the default. */
export const queryBool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => (v === undefined ? fallback : v === 'true' || v === '1'));

/** Lifecycle answers are a bare JSON string with a JSON content type (API.md). */
export const answer = (reply: FastifyReply, status: number, text: string): FastifyReply =>
  reply.status(status).type('application/json; charset=utf-8').send(JSON.stringify(text));
