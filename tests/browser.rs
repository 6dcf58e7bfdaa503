//! Browser tests: compiled to wasm32 and run in headless Chromium by
//! wasm-bindgen-test (`cargo test --target wasm32-unknown-unknown --test browser`).
#![cfg(target_arch = "wasm32")]

mod common;

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The same seed gives the same run in wasm as natively: the golden hash is
/// the one `tests/determinism.rs` checks on the native target.
#[wasm_bindgen_test]
fn the_trace_hash_matches_native() {
    let sim = common::determinism_run(42);
    assert_eq!(sim.trace_hash(), common::GOLDEN_TRACE_HASH, "got {:#x}", sim.trace_hash());
}

/// The same holds for the booted KRaft run the page shows.
#[wasm_bindgen_test]
fn the_kraft_trace_hash_matches_native() {
    let sim = common::determinism_run_kraft(42);
    assert_eq!(sim.trace_hash(), common::GOLDEN_KRAFT_TRACE_HASH, "got {:#x}", sim.trace_hash());
}

/// And for the events benchmark's workload.
#[wasm_bindgen_test]
fn the_events_benchmark_trace_hash_matches_native() {
    let mut w = kafkascope::sim::workload::EventsWorkload::boot(1, true);
    w.run_to(common::BENCH_EVENTS);
    assert_eq!(w.sim().trace_hash(), common::GOLDEN_BENCH_TRACE_HASH, "got {:#x}", w.sim().trace_hash());
}

/// And its metrics samples.
#[wasm_bindgen_test]
fn the_events_benchmark_samples_match_native() {
    let mut w = kafkascope::sim::workload::EventsWorkload::boot(1, true);
    w.run_to(common::BENCH_EVENTS);
    assert_eq!(common::samples_hash(w.sim()), common::GOLDEN_BENCH_SAMPLES_HASH, "got {:#x}", common::samples_hash(w.sim()));
}

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

fn button(root: &web_sys::Element, label: &str) -> web_sys::HtmlElement {
    root.query_selector(&format!("button:not([role='tab'])[aria-label='{label}']"))
        .unwrap()
        .unwrap_or_else(|| panic!("no button labelled {label}"))
        .dyn_into()
        .unwrap()
}

#[wasm_bindgen_test]
async fn the_app_produces_and_steps_to_the_offset() {
    let root = document().create_element("div").unwrap();
    document().body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<kafkascope::ui::components::App>::with_root(root.clone()).render();
    yew::scheduler::flush().await;

    assert!(root.text_content().unwrap().contains("Nothing produced yet"));
    // The key decides the partition: Kafka's murmur2, masked positive, modulo 3.
    let expected = kafkascope::sim::record::partitioner::partition_for_key(b"user-42", 3).unwrap().partition;
    button(&root, "Produce").click();
    yew::scheduler::flush().await;
    let produced = || {
        root.query_selector("[aria-label='Produced records']").unwrap().unwrap().text_content().unwrap()
    };
    let mut steps = 0;
    let answer = format!("partition {expected}, offset 0");
    while !produced().contains(&answer) {
        button(&root, "Step").click();
        yew::scheduler::flush().await;
        steps += 1;
        assert!(steps < 400, "the response never arrived: {}", produced());
    }
    let partition = root
        .query_selector(&format!("[aria-label='Partition orders-{expected}']"))
        .unwrap()
        .expect("the partition's group");
    let text = partition.text_content().unwrap();
    assert!(text.contains("HW 1"), "acks=all answered only after the high watermark covered the record: {text}");
    // Step back undoes the step that delivered the response.
    button(&root, "Step back").click();
    yew::scheduler::flush().await;
    assert!(!produced().contains(&answer), "{}", produced());
    assert!(produced().contains("waiting for the broker"), "{}", produced());
    root.remove();
}

#[wasm_bindgen_test]
fn the_error_banner_is_visible_and_announced() {
    kafkascope::ui::show_error_banner("boom");
    let banner = document().get_element_by_id("panic-banner").expect("a banner");
    assert_eq!(banner.get_attribute("role").as_deref(), Some("alert"));
    assert!(banner.text_content().unwrap().contains("boom"));
    banner.remove();
}

/// A share link made in wasm reopens to the same run, bit for bit.
#[wasm_bindgen_test]
fn a_share_link_reopens_the_same_run_in_wasm() {
    use kafkascope::ui::setup::Setup;
    use kafkascope::ui::share::ShareLink;
    let setup = Setup { seed: 5, ..Setup::default() };
    let mut s = setup.start().unwrap();
    s.command(kafkascope::sim::simulation::Command::Produce {
        client: 0,
        topic: "orders".into(),
        key: Some("k".into()),
        value: Some("v".into()),
        headers: vec![],
        partition: None,
        timestamp_ms: None,
    })
    .unwrap();
    s.step_many(80);
    s.go_to(40);
    let reopened = ShareLink::decode(&ShareLink::of(&setup, &s).encode()).unwrap().open().unwrap();
    assert_eq!(reopened.sim().trace_hash(), s.sim().trace_hash());
    assert_eq!(reopened.view(), s.view());
}

/// A broken link in the address bar is announced, and the default cluster opens.
#[wasm_bindgen_test]
async fn a_broken_link_is_announced_and_the_default_cluster_opens() {
    let history = web_sys::window().unwrap().history().unwrap();
    history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("#s=!!")).unwrap();
    let root = document().create_element("div").unwrap();
    document().body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<kafkascope::ui::components::App>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    let alert = root.query_selector("[role='alert']").unwrap().expect("an alert");
    assert!(alert.text_content().unwrap().contains("This share link could not be opened"));
    assert!(root.query_selector("[aria-label='Broker 2']").unwrap().is_some());
    assert!(root.query_selector("[aria-label='Broker 3']").unwrap().is_none());
    root.remove();
    let path = web_sys::window().unwrap().location().pathname().unwrap();
    history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&path)).unwrap();
}
