//! Several drives at once: `suite` with a --target each reviews them side by side, each into
//! its own directory, stored as its own run; other commands take one target.

use crate::common::*;

fn run_id(dir: &std::path::Path) -> String {
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("suite.json")).unwrap()).unwrap();
    assert_eq!(rec["complete"], true, "{rec}");
    rec["run_id"].as_str().unwrap().to_string()
}

#[test]
fn two_drives_make_two_complete_runs_stored_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("bench.db");
    let out = tmp.path().join("r");
    let o = ssdlab()
        .args(["suite", "--quick", "--only", "corners"])
        .args(["--target", "sim:default,capacity=2G"])
        .args(["--target", "sim:default,capacity=2G,op=25%"])
        .arg("--db")
        .arg(&db)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let a = out.join("sim_default_capacity_2G");
    let b = out.join("sim_default_capacity_2G_op_25");
    for dir in [&a, &b] {
        assert!(result_files(dir) >= 7, "{}: {t}", dir.display());
        assert!(t.contains(&format!("results: {}", dir.display())), "{t}");
        assert!(dir.join("report.html").exists());
        let worker = std::fs::read_to_string(dir.join("worker.txt")).unwrap();
        assert!(worker.contains("2 drives at once"), "{worker}");
    }
    assert_ne!(run_id(&a), run_id(&b));

    let o = ssdlab()
        .args(["bench", "list", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let list = text(&o);
    assert!(o.status.success(), "{list}");
    let suites = list.lines().filter(|l| l.contains(" suite ")).count();
    assert_eq!(suites, 2, "{list}");
}

#[test]
fn other_commands_take_one_target() {
    let o = run(&[
        "run",
        "seq-read",
        "--target",
        "sim:default",
        "--target",
        "sim:fast",
    ]);
    let t = text(&o);
    assert!(!o.status.success());
    assert!(
        t.contains("only `ssdlab suite` takes several --target"),
        "{t}"
    );
}

#[test]
fn several_drives_refuse_a_shared_meter_and_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let two = ["--target", "sim:default", "--target", "sim:default,op=25%"];
    let o = ssdlab()
        .args(["suite", "--power-meter", "cmd:true"])
        .args(two)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        text(&o).contains("measures one drive: review a metered drive on its own"),
        "{}",
        text(&o)
    );
    let o = ssdlab()
        .args(["suite", "--resume"])
        .arg(tmp.path())
        .args(two)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(text(&o).contains("resume each on its own"), "{}", text(&o));
}

#[test]
fn several_drives_name_each_device_once() {
    let o = run(&[
        "suite",
        "--target",
        "sim:default",
        "--target",
        "sim:default",
    ]);
    assert!(!o.status.success());
    assert!(text(&o).contains("given twice"), "{}", text(&o));
    let o = run(&[
        "suite",
        "--target",
        "sim:default",
        "--target",
        "sim:default,op=25%",
        "--destroy-data=/dev/sdz",
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("--destroy-data=/dev/sdz names none of the targets"),
        "{}",
        text(&o)
    );
}

#[test]
fn ctrl_c_stops_every_drive_and_each_can_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    let child = ssdlab()
        .args([
            "suite",
            "--no-store",
            "--only",
            "corners",
            "--only",
            "consistency",
        ])
        .args(["--target", "sim:default", "--target", "sim:default,op=7%"])
        .arg("--out")
        .arg(&out)
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupted once both drives' suites have begun (each writes its suite.json first).
    let begun = ["sim_default", "sim_default_op_7"].map(|n| out.join(n).join("suite.json"));
    wait_until(60, || begun.iter().all(|p| p.exists()));
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(130), "{t}");
    for name in ["sim_default", "sim_default_op_7"] {
        let dir = out.join(name);
        let rec: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("suite.json")).unwrap())
                .unwrap();
        assert_eq!(rec["complete"], false, "{rec}");
        assert!(
            t.contains(&format!("ssdlab suite --resume {}", dir.display())),
            "{t}"
        );
    }
}

/// `suite --target a --target b`, which must be refused before anything runs as two names
/// of one drive: the message.
fn refused_as_one_drive(a: &str, b: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    let o = ssdlab()
        .args(["suite", "--quick", "--only", "corners", "--no-store"])
        .args(["--target", a, "--target", b])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(
        t.contains(&format!("--target {a} and --target {b} are one drive")),
        "{t}"
    );
    assert!(!out.exists(), "nothing ran: {t}");
    t
}

/// A file and a symbolic link to it are one drive: run at once, each would measure the
/// other's interference (issue #22).
#[test]
fn a_file_and_a_link_to_it_are_one_drive() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a.img");
    std::fs::File::create(&file)
        .unwrap()
        .set_len(16 << 20)
        .unwrap();
    let link = tmp.path().join("b.img");
    std::os::unix::fs::symlink(&file, &link).unwrap();
    let t = refused_as_one_drive(
        &format!("file:{}", file.display()),
        &format!("file:{}", link.display()),
    );
    assert!(t.contains("drop one of them"), "{t}");
}

/// A loop device and the file behind it are one drive.
#[test]
fn a_loop_device_and_its_backing_file_are_one_drive() {
    let Some(dev) = LoopDev::ram("twonames", "64M") else {
        return;
    };
    let t = refused_as_one_drive(dev.dev(), &format!("file:{}", dev.backing()));
    assert!(t.contains("loop device over"), "{t}");
}
