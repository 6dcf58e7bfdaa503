//! The headless command line over the simulation core.

use kafkascope::sim::simulation::{ClusterConfig, Command, Simulation};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("demo") => {
            let mut sim = match Simulation::new(ClusterConfig::default(), 1) {
                Ok(sim) => sim,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let produce = Command::Produce {
                client: 0,
                topic: "orders".into(),
                key: Some("k".into()),
                value: Some("v".into()),
                headers: vec![],
                partition: None,
                timestamp_ms: None,
            };
            if let Err(e) = sim.command(produce) {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
            sim.run_until(50);
            for event in sim.trace() {
                println!("{event}");
            }
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("usage: kafkascope-cli demo");
            ExitCode::from(2)
        }
    }
}
