//! bench:engine's workload on the established engine (the `dbsp` crate), for a side-by-side
//! baseline. The same two tables, the same three views, the same orders in the same batches as
//! bench/engine.ts; the result is one JSON object on stdout (bench/engine-dbsp.ts reads it).
//!
//! Rows are typed tuples, numeric(10,2) as cents in an i64 (exact for this data). By default each
//! batch is made as JSON text and decoded, as bench:engine does for our engine (`--input rows`
//! builds the rows in Rust instead). With several workers the views are read with
//! `accumulate_output`: `output()` keeps only the last internal step of a transaction.

use std::{
    fmt::Write as _,
    time::{Duration, Instant},
};

use dbsp::{
    utils::{Tup2, Tup3, Tup4},
    IndexedZSetReader, OrdIndexedZSet, OrdZSet, OutputHandle, Runtime, ZSetHandle,
};
use serde::Deserialize;

type Order = Tup4<i64, i32, i64, String>; // id, customer, amount in cents, status
type Customer = Tup2<i32, String>; // id, region
type BigOrder = Tup3<i64, i32, i64>; // id, customer, amount
type OrderRegion = Tup3<i64, String, i64>; // id, region, amount
type Revenue = OrdIndexedZSet<i32, Tup2<i64, i64>>; // customer → (n, total)
type Snapshot<B> = OutputHandle<dbsp::typed_batch::SpineSnapshot<B>>;

const CUSTOMERS: i64 = 1000;
const STATUSES: [&str; 3] = ["new", "paid", "shipped"];

struct Args {
    workers: usize,
    records: i64,
    batch: i64,
    latency_s: u64,
    json: bool,
    dump: bool,
}

fn parse_args() -> Args {
    let mut a = Args { workers: 1, records: 1_000_000, batch: 10_000, latency_s: 10, json: true, dump: false };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| fail(&format!("{flag} needs a value")));
        match flag.as_str() {
            "--workers" => a.workers = number(&flag, &value()) as usize,
            "--records" => a.records = number(&flag, &value()),
            "--batch" => a.batch = number(&flag, &value()),
            "--latency" => a.latency_s = number(&flag, &value()) as u64,
            "--input" => match value().as_str() {
                "json" => a.json = true,
                "rows" => a.json = false,
                other => fail(&format!("--input: json or rows, not {other}")),
            },
            "--dump" => a.dump = true,
            _ => fail(&format!(
                "unknown flag {flag}\nusage: dbsp-baseline [--workers N] [--records N] [--batch N] [--latency S] [--input json|rows] [--dump]"
            )),
        }
    }
    if a.workers < 1 || a.records < 1 || a.batch < 1 {
        fail("--workers, --records and --batch must be at least 1");
    }
    a
}

fn number(flag: &str, text: &str) -> i64 {
    text.parse().unwrap_or_else(|_| fail(&format!("{flag}: not a number: {text}")))
}

fn fail(message: &str) -> ! {
    eprintln!("dbsp-baseline: {message}");
    std::process::exit(2)
}

/// bench/engine.ts's `order(i)`, amount in cents.
fn order(i: i64) -> Order {
    Tup4(i, ((i % CUSTOMERS) + 1) as i32, (i * 7919) % 100_000, STATUSES[(i % 3) as usize].to_string())
}

#[derive(Deserialize)]
struct InsertRecord {
    insert: OrderJson,
}

#[derive(Deserialize)]
struct OrderJson {
    id: i64,
    customer: i32,
    amount: f64,
    status: String,
}

/// A batch as the wire carries it: a JSON array of insert records, as bench/engine.ts's `batchJson`.
fn batch_json(from: i64, n: i64) -> String {
    let mut s = String::with_capacity(n as usize * 72);
    s.push('[');
    for i in from..from + n {
        let Tup4(id, customer, cents, status) = order(i);
        if i > from {
            s.push(',');
        }
        let _ = write!(
            s,
            r#"{{"insert":{{"id":{id},"customer":{customer},"amount":{}.{:02},"status":"{status}"}}}}"#,
            cents / 100,
            cents % 100
        );
    }
    s.push(']');
    s
}

fn make_batch(json: bool, from: i64, n: i64) -> Vec<Tup2<Order, i64>> {
    if !json {
        return (from..from + n).map(|i| Tup2(order(i), 1)).collect();
    }
    let records: Vec<InsertRecord> = serde_json::from_str(&batch_json(from, n)).expect("decoding a batch");
    records
        .into_iter()
        .map(|r| {
            let o = r.insert;
            Tup2(Tup4(o.id, o.customer, (o.amount * 100.0).round() as i64, o.status), 1)
        })
        .collect()
}

struct Outputs {
    big_orders: Snapshot<OrdZSet<BigOrder>>,
    order_regions: Snapshot<OrdZSet<OrderRegion>>,
    revenue: Snapshot<Revenue>,
}

type Handles = (ZSetHandle<Order>, ZSetHandle<Customer>, Outputs);

fn build(workers: usize) -> (dbsp::DBSPHandle, Handles) {
    Runtime::init_circuit(workers, |circuit| {
        let (orders, orders_in) = circuit.add_input_zset::<Order>();
        let (customers, customers_in) = circuit.add_input_zset::<Customer>();
        // big_orders: SELECT id, customer, amount FROM orders WHERE amount > 900
        let big = orders.filter(|o| o.2 > 90_000).map(|o| Tup3(o.0, o.1, o.2));
        // order_regions: orders JOIN customers ON c.id = o.customer
        let by_customer = orders.map_index(|o| (o.1, Tup2(o.0, o.2)));
        let regions = customers.map_index(|c| (c.0, c.1.clone()));
        let joined = by_customer.join(&regions, |_, o, region| Tup3(o.0, region.clone(), o.1));
        // revenue: SELECT customer, count(*), sum(amount) FROM orders GROUP BY customer
        let revenue = orders.map_index(|o| (o.1, o.2)).aggregate_linear(|amount| Tup2(1i64, *amount));
        let outputs = Outputs {
            big_orders: big.accumulate_output(),
            order_regions: joined.accumulate_output(),
            revenue: revenue.accumulate_output(),
        };
        Ok((orders_in, customers_in, outputs))
    })
    .expect("building the circuit")
}

/// What a step's reader gets: every view's changes of the step, consolidated across workers.
#[derive(Default)]
struct Changes {
    big_orders: Vec<(BigOrder, i64)>,
    order_regions: Vec<(OrderRegion, i64)>,
    revenue: Vec<((i32, Tup2<i64, i64>), i64)>,
}

fn read_changes(out: &Outputs) -> Changes {
    Changes {
        big_orders: out.big_orders.concat().consolidate().iter().map(|(k, (), w)| (k, w)).collect(),
        order_regions: out.order_regions.concat().consolidate().iter().map(|(k, (), w)| (k, w)).collect(),
        revenue: out.revenue.concat().consolidate().iter().map(|(k, v, w)| ((k, v), w)).collect(),
    }
}

fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn percentile(xs: &[f64], p: f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let i = ((p * v.len() as f64).floor() as usize).min(v.len().saturating_sub(1));
    v.get(i).copied().unwrap_or(f64::NAN)
}

/// JSON has no NaN: a phase that was skipped has no figure.
fn json_number(x: f64) -> String {
    if x.is_finite() { format!("{x:.3}") } else { "null".to_string() }
}

fn cents(c: i64) -> String {
    format!("{}{}.{:02}", if c < 0 { "-" } else { "" }, c.abs() / 100, c.abs() % 100)
}

/// The views' contents after the run, summed from every step's changes (the reader's view of them).
#[derive(Default)]
struct Integrated {
    big_orders: std::collections::BTreeMap<BigOrder, i64>,
    order_regions: std::collections::BTreeMap<OrderRegion, i64>,
    revenue: std::collections::BTreeMap<(i32, Tup2<i64, i64>), i64>,
}

impl Integrated {
    fn add(&mut self, c: Changes) {
        fn sum<K: Ord>(m: &mut std::collections::BTreeMap<K, i64>, xs: Vec<(K, i64)>) {
            for (k, w) in xs {
                let e = m.entry(k).or_insert(0);
                *e += w;
            }
            m.retain(|_, w| *w != 0);
        }
        sum(&mut self.big_orders, c.big_orders);
        sum(&mut self.order_regions, c.order_regions);
        sum(&mut self.revenue, c.revenue);
    }

    /// Each view as an array of rows, each row an array of its columns as PostgreSQL prints them.
    fn json(&self) -> String {
        fn rows<K>(m: &std::collections::BTreeMap<K, i64>, f: impl Fn(&K) -> [String; 3]) -> String {
            let mut out = Vec::new();
            for (k, w) in m {
                assert!(*w > 0, "a view row with weight {w}");
                let cols = f(k).map(|c| format!("{c:?}")).join(",");
                for _ in 0..*w {
                    out.push(format!("[{cols}]"));
                }
            }
            format!("[{}]", out.join(","))
        }
        format!(
            r#"{{"big_orders":{},"order_regions":{},"revenue":{}}}"#,
            rows(&self.big_orders, |Tup3(id, c, a)| [id.to_string(), c.to_string(), cents(*a)]),
            rows(&self.order_regions, |Tup3(id, r, a)| [id.to_string(), r.clone(), cents(*a)]),
            rows(&self.revenue, |(c, Tup2(n, t))| [c.to_string(), n.to_string(), cents(*t)]),
        )
    }
}

fn main() {
    let args = parse_args();
    let (mut circuit, (orders, customers, outputs)) = build(args.workers);
    let mut integrated = Integrated::default();
    let mut keep = |c: Changes| {
        if args.dump {
            integrated.add(c)
        }
    };

    let mut cs: Vec<_> = (0..CUSTOMERS).map(|k| Tup2(Tup2((k + 1) as i32, format!("r{}", k % 7)), 1)).collect();
    customers.append(&mut cs);
    circuit.transaction().expect("step");
    keep(read_changes(&outputs));

    // Throughput: make (and decode) a batch, append it, one transaction, read every view's changes.
    let mut step_ms = Vec::new();
    let t0 = Instant::now();
    let mut from = 0;
    while from < args.records {
        let n = args.batch.min(args.records - from);
        let mut batch = make_batch(args.json, from, n);
        orders.append(&mut batch);
        let s0 = Instant::now();
        circuit.transaction().expect("step");
        keep(read_changes(&outputs));
        step_ms.push(s0.elapsed().as_secs_f64() * 1000.0);
        from += n;
    }
    let seconds = t0.elapsed().as_secs_f64();
    let rss_kib = status_kib("VmRSS:");

    // Latency: 1,000 records/s in batches of 100 every 100 ms, each stepped at once; batch in → changes out.
    let mut lat = Vec::new();
    let end = Instant::now() + Duration::from_secs(args.latency_s);
    let mut id = args.records;
    while Instant::now() < end {
        let at = Instant::now();
        let mut batch = make_batch(args.json, id, 100);
        orders.append(&mut batch);
        circuit.transaction().expect("step");
        keep(read_changes(&outputs));
        lat.push(at.elapsed().as_secs_f64() * 1000.0);
        id += 100;
        std::thread::sleep(Duration::from_millis(100).saturating_sub(at.elapsed()));
    }

    let steps = step_ms.iter().map(|x| format!("{x:.3}")).collect::<Vec<_>>().join(",");
    let views = if args.dump { integrated.json() } else { "null".to_string() };
    println!(
        r#"{{"engine":"dbsp","dbsp_version":"0.349.0","workers":{},"input":"{}","records":{},"batch":{},"seconds":{seconds:.6},"records_per_s":{:.1},"step_ms":[{steps}],"latency":{{"p50":{},"p99":{},"samples":{}}},"rss_mib":{:.1},"peak_rss_mib":{:.1},"views":{views}}}"#,
        args.workers,
        if args.json { "json" } else { "rows" },
        args.records,
        args.batch,
        args.records as f64 / seconds,
        json_number(percentile(&lat, 0.5)),
        json_number(percentile(&lat, 0.99)),
        lat.len(),
        rss_kib as f64 / 1024.0,
        status_kib("VmHWM:") as f64 / 1024.0,
    );
    circuit.kill().expect("stopping the workers");
}
