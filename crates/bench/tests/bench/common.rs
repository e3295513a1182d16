//! Fixtures shared by the integration tests and, included by path, the library's unit tests
//! (`src/db/tests.rs`): one definition, though neither test binary can see the other's
//! items. The including module brings `RunRecord` into scope.

use serde_json::json;
use suite::result::TestResult;

use super::RunRecord;

/// A small but complete test result, as a run on drive `model` would leave it.
pub fn result(
    test: &str,
    variant: Option<&str>,
    model: &str,
    started: &str,
    mbps: f64,
) -> TestResult {
    serde_json::from_value(json!({
        "schema_version": 1,
        "tool": {"name": "ssdlab", "version": "0.1.0"},
        "test": test,
        "variant": variant,
        "label": format!("{test} on {model}"),
        "started_at": started,
        "complete": true,
        "parameters": parameters(test),
        "target": {
            "kind": "sim", "path": format!("sim:{model}"), "model": model, "serial": "SIM-1",
            "firmware": "1", "vendor": null, "capacity_bytes": 8_000_000_000u64,
            "logical_block_bytes": 512, "physical_block_bytes": 4096, "rotational": false
        },
        "clock": "virtual",
        "system": {"cpu": "cpu", "cores": 2, "memory_bytes": 1, "kernel": "6", "os": "linux", "hostname": "h"},
        "summary": {
            "ios": 100, "bytes": 409_600, "duration_s": 1.0, "iops": mbps * 244.0, "mbps": mbps,
            "busy_time_s": 1.0, "avg_in_flight": 1.0, "max_in_flight": 1
        },
        "per_second": [{"t": 0, "ios": 50, "iops": 50.0, "mbps": mbps}, {"t": 1, "ios": 50, "iops": 50.0, "mbps": mbps}],
        "analysis": if test == "consistency" {
            let iops = mbps * 244.0;
            // The methodology's window, all 600 s of it: a steady state.
            json!({"spare_pct": 0.0, "steady_from_s": 1400.0, "drop_s": null, "whole_run": null,
                   "steady_state": {"count": 600, "mean": iops, "median": iops, "min": iops,
                                    "max": iops, "stddev": 0.0, "p1": iops, "p99": iops}})
        } else {
            serde_json::Value::Null
        }
    }))
    .expect("fixture parses")
}

/// Parameters of the shape a `test` result stores (they are typed by test).
pub fn parameters(test: &str) -> serde_json::Value {
    let workload = json!({"access": "sequential", "block_bytes": 4096, "offset_bytes": 0,
        "span_bytes": 1_048_576, "read_pct": 0, "data": {"kind": "incompressible"}, "qd": 32,
        "limit": {"bytes": null, "duration_ns": 1_000_000_000u64, "ios": null}, "seed": 1});
    let plan = json!({"mode": {"mode": "afap", "qd": 32}, "remap": "wrap", "max_in_flight": 32,
        "max_io_bytes": 1_048_576, "data": {"kind": "incompressible"}, "seed": 1});
    match test {
        "power-idle" | "power-slumber" => {
            json!({"state": &test["power-".len()..], "rest_s": 60.0, "duration_s": 60.0})
        }
        "trim" => json!({"span_bytes": 1_048_576,
            "pass": {"access": "sequential", "block_bytes": 131_072, "qd": 1, "samples": 100},
            "torture": workload, "table_s": 60.0, "margin": 0.1, "idle_before_pass_s": 60.0}),
        "verify" => json!({"offset_bytes": 0, "span_bytes": 1_048_576, "phases": [],
            "backlog_units": 64, "unit_bytes": 4096, "seed": 1, "data": {"kind": "incompressible"}}),
        "transfer-sweep" => json!({"access": "sequential", "region_bytes": 1_048_576,
            "transfer_bytes": [4096], "qd": 4, "data": {"kind": "incompressible"}, "read_pct": 0,
            "headline_point": workload}),
        "replay" | "storage-bench" => json!({"trace": "t", "plan": plan}),
        _ => workload,
    }
}

pub fn run(model: &str, started: &str, results: Vec<TestResult>) -> RunRecord {
    RunRecord {
        run_id: uuid::Uuid::new_v4().to_string(),
        kind: "suite".into(),
        target_spec: format!("sim:{model}"),
        started_at: started.into(),
        quick: true,
        complete: true,
        source: None,
        results,
    }
}
