/**
 * The shapes of a dereferenced OpenAPI 3.0 / 3.1 document, as far as the plugin reads them.
 * The loader has validated the document against the official schema and replaced every
 * `$ref` with its target, so these hold; schemas stay plain JSON objects (possibly cyclic).
 */

/** A Schema Object (3.0) or a JSON Schema (3.1), dereferenced. */
export type SchemaObject = { [key: string]: unknown };

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

export interface MediaTypeObject {
  schema?: SchemaObject | boolean;
}

export interface ParameterObject {
  name: string;
  in: ParameterLocation;
  description?: string;
  required?: boolean;
  deprecated?: boolean;
  schema?: SchemaObject | boolean;
  content?: Record<string, MediaTypeObject>;
  style?: string;
  explode?: boolean;
  allowReserved?: boolean;
}

export interface RequestBodyObject {
  description?: string;
  required?: boolean;
  content?: Record<string, MediaTypeObject>;
}

export interface ResponseObject {
  description?: string;
  content?: Record<string, MediaTypeObject>;
}

/** One alternative of a security requirement: every scheme named must be satisfied. */
export type SecurityRequirement = Record<string, string[]>;

export interface SecuritySchemeObject {
  type: 'apiKey' | 'http' | 'oauth2' | 'openIdConnect' | 'mutualTLS';
  name?: string;
  in?: 'query' | 'header' | 'cookie';
  scheme?: string;
}

export interface ServerObject {
  url: string;
  variables?: Record<string, { default: string }>;
}

export interface OperationObject {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: ParameterObject[];
  requestBody?: RequestBodyObject;
  responses?: Record<string, ResponseObject>;
  security?: SecurityRequirement[];
  deprecated?: boolean;
  servers?: ServerObject[];
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type PathItemObject = {
  parameters?: ParameterObject[];
  servers?: ServerObject[];
} & { [M in HttpMethod]?: OperationObject };

export interface ApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers?: ServerObject[];
  paths?: Record<string, PathItemObject>;
  components?: { securitySchemes?: Record<string, SecuritySchemeObject> };
  security?: SecurityRequirement[];
}

/** One operation with where it lives: the unit that becomes a tool. */
export interface Operation {
  readonly method: HttpMethod;
  readonly path: string;
  readonly operation: OperationObject;
  readonly pathItem: PathItemObject;
  /** `GET /pets/{petId} (showPetById)`: how messages name the operation. */
  readonly label: string;
}

/** `GET /pets/{petId} (showPetById)`, or without the id when there is none. */
export function operationLabel(method: string, path: string, operationId?: string): string {
  return `${method.toUpperCase()} ${path}${operationId ? ` (${operationId})` : ''}`;
}

/** Every operation of the document, in document order. */
export function operationsOf(api: ApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [path, pathItem] of Object.entries(api.paths ?? {})) {
    if (!pathItem) continue;
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!operation) continue;
      out.push({
        method,
        path,
        operation,
        pathItem,
        label: operationLabel(method, path, operation.operationId),
      });
    }
  }
  return out;
}

export function isObjectValue(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
