import { readFileSync } from 'node:fs';
import type { OpenAPIV3_1 } from 'openapi-types';
import { SCHEMA_DIR } from './schemas.ts';

/** schemas/openapi.json: the documented operations; its bodies refer to the files schemas/*.schema.json (./name.schema.json), as any OpenAPI tool resolves them. */
export const openapi = JSON.parse(readFileSync(`${SCHEMA_DIR}openapi.json`, 'utf8')) as OpenAPIV3_1.Document;

type Method = 'get' | 'post';

/** The documented operation of a path template, or undefined when the contract does not name it. */
export function operation(method: Method, pathTemplate: string): OpenAPIV3_1.OperationObject | undefined {
  return openapi.paths?.[pathTemplate]?.[method];
}

/** True for an operation the contract marks deprecated (the report flags every use of it). */
export function isDeprecated(method: Method, pathTemplate: string): boolean {
  return operation(method, pathTemplate)?.deprecated === true;
}
