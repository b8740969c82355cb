CREATE TABLE times (
  a date, b time, c time(3), d timetz, e timestamp, f timestamp(6), g timestamptz, h interval, i interval(2)
);
