import { addNumeric, divNumeric, mulNumeric, type Numeric, negNumeric, subNumeric } from './numeric.js';
import { divisionByZero, outOfRange, SqlError } from './sql-error.js';
import type { Base, Value } from './types.js';

// The arithmetic operators of the numeric types, with PostgreSQL's results and errors: integers
// that leave their type's range fail with `<type> out of range` (SQLSTATE 22003), integer division
// truncates, division by zero fails (22012), float8 fails on overflow to infinity and underflow to
// zero from finite, non-zero operands, numeric is exact (numeric.ts).

export type ArithmeticOp = '+' | '-' | '*' | '/' | '%';
type Binary = (a: Value, b: Value) => Value;

const INT_LIMITS = {
  int2: [-32768, 32767, 'smallint'],
  int4: [-2147483648, 2147483647, 'integer'],
} as const;
const INT8_MIN = -9223372036854775808n;
const INT8_MAX = 9223372036854775807n;

export function checkInt(base: 'int2' | 'int4', r: number): number {
  const [lo, hi, name] = INT_LIMITS[base];
  if (r < lo || r > hi) throw outOfRange(name);
  return r + 0; // never -0 (0 * -5, -1 / 2 in JavaScript)
}

export function checkInt8(r: bigint): bigint {
  if (r < INT8_MIN || r > INT8_MAX) throw outOfRange('bigint');
  return r;
}

function smallInt(base: 'int2' | 'int4', op: ArithmeticOp): Binary {
  const checked = (r: number) => checkInt(base, r);
  switch (op) {
    case '+':
      return (a, b) => checked((a as number) + (b as number));
    case '-':
      return (a, b) => checked((a as number) - (b as number));
    case '*':
      return (a, b) => checked((a as number) * (b as number));
    case '/':
      return (a, b) => {
        if (b === 0) throw divisionByZero();
        return checked(Math.trunc((a as number) / (b as number)));
      };
    case '%':
      return (a, b) => {
        if (b === 0) throw divisionByZero();
        // PostgreSQL returns 0 for x % -1 (the C operator could trap on MIN % -1).
        return b === -1 ? 0 : ((a as number) % (b as number)) + 0;
      };
  }
}

function bigInt(op: ArithmeticOp): Binary {
  switch (op) {
    case '+':
      return (a, b) => checkInt8((a as bigint) + (b as bigint));
    case '-':
      return (a, b) => checkInt8((a as bigint) - (b as bigint));
    case '*':
      return (a, b) => checkInt8((a as bigint) * (b as bigint));
    case '/':
      return (a, b) => {
        if (b === 0n) throw divisionByZero();
        return checkInt8((a as bigint) / (b as bigint));
      };
    case '%':
      return (a, b) => {
        if (b === 0n) throw divisionByZero();
        return b === -1n ? 0n : (a as bigint) % (b as bigint);
      };
  }
}

function float(op: ArithmeticOp): Binary | undefined {
  const checked = (r: number, a: number, b: number, zeroOk: boolean): number => {
    if (!Number.isFinite(r) && !Number.isNaN(r) && Number.isFinite(a) && Number.isFinite(b))
      throw new SqlError('22003', 'value out of range: overflow');
    if (r === 0 && !zeroOk) throw new SqlError('22003', 'value out of range: underflow');
    return r;
  };
  switch (op) {
    case '+':
      return (a, b) => checked((a as number) + (b as number), a as number, b as number, true);
    case '-':
      return (a, b) => checked((a as number) - (b as number), a as number, b as number, true);
    case '*':
      return (a, b) => checked((a as number) * (b as number), a as number, b as number, a === 0 || b === 0);
    case '/':
      return (a, b) => {
        if (b === 0 && !Number.isNaN(a)) throw divisionByZero();
        return checked((a as number) / (b as number), a as number, b as number, a === 0 || !Number.isFinite(b));
      };
    case '%':
      return undefined;
  }
}

const NUMERIC_OPS: Partial<Record<ArithmeticOp, (a: Numeric, b: Numeric) => Numeric>> = {
  '+': addNumeric,
  '-': subNumeric,
  '*': mulNumeric,
  '/': divNumeric,
};

/** The operator on two non-null values of `base`, or undefined when it is not native. */
export function arithmetic(base: Base, op: ArithmeticOp): Binary | undefined {
  switch (base) {
    case 'int2':
    case 'int4':
      return smallInt(base, op);
    case 'int8':
      return bigInt(op);
    case 'float8':
      return float(op);
    case 'numeric': {
      const f = NUMERIC_OPS[op];
      return f && ((a, b) => f(a as Numeric, b as Numeric));
    }
    default:
      return undefined;
  }
}

/** Unary minus. */
export function negate(base: Base): ((a: Value) => Value) | undefined {
  switch (base) {
    case 'int2':
    case 'int4':
      return (a) => checkInt(base, -(a as number));
    case 'int8':
      return (a) => checkInt8(-(a as bigint));
    case 'float8':
      return (a) => -(a as number);
    case 'numeric':
      return (a) => negNumeric(a as Numeric);
    default:
      return undefined;
  }
}
