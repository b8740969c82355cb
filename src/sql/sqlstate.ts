// Condition names (Postgres appendix A) of the SQLSTATE codes a DDL program commonly hits; others
// are reported by their code.
const NAMES: Record<string, string> = {
  '42601': 'syntax error',
  '42703': 'undefined_column',
  '42P01': 'undefined_table',
  '42883': 'undefined_function',
  '42704': 'undefined_object',
  '42804': 'datatype_mismatch',
  '42P07': 'duplicate_table',
  '42701': 'duplicate_column',
  '42710': 'duplicate_object',
  '42723': 'duplicate_function',
  '42702': 'ambiguous_column',
  '42725': 'ambiguous_function',
  '42803': 'grouping_error',
  '42P10': 'invalid_column_reference',
  '42P16': 'invalid_table_definition',
  '42611': 'invalid_column_definition',
  '42P13': 'invalid_function_definition',
  '42809': 'wrong_object_type',
  '42846': 'cannot_coerce',
  '42P18': 'indeterminate_datatype',
  '42939': 'reserved_name',
  '0A000': 'feature_not_supported',
  '22P02': 'invalid_text_representation',
  '22023': 'invalid_parameter_value',
  '22003': 'numeric_value_out_of_range',
  '22012': 'division_by_zero',
  '2BP01': 'dependent_objects_still_exist',
  '57014': 'query_canceled',
};

export const conditionName = (code: string | undefined): string =>
  code === undefined ? 'error' : (NAMES[code] ?? code);
