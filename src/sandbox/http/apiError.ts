export type FieldErrors = Record<string, string[]>;

/** An error the sandbox answers with `{ error, message }` (and `errors` for 422). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors?: FieldErrors,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return this.errors
      ? { error: this.code, message: this.message, errors: this.errors }
      : { error: this.code, message: this.message };
  }
}

export const notFound = (what = 'Resource'): ApiError => new ApiError(404, 'not_found', `${what} not found.`);

export function validationError(errors: FieldErrors, message?: string): ApiError {
  const first = Object.entries(errors)[0];
  const text =
    message ?? (first ? `${first[0]}: ${first[1][0] ?? 'is invalid'}` : 'The given data was invalid.');
  return new ApiError(422, 'validation_error', text, errors);
}

export const NO_FIELD_MESSAGE = 'At least one updatable field is required.';

export const noUpdatableField = (): ApiError =>
  validationError({ body: [NO_FIELD_MESSAGE] }, NO_FIELD_MESSAGE);
