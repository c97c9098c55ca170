//! `SimulatorConfig::extra_senders`: more business numbers beside the seeded two, for benchmarks.

use herald_simulator::{MAX_EXTRA_SENDERS, SimulatorConfig, extra_senders, seeded_senders};

use crate::helpers::*;

const CUSTOMER: &str = "+4915112345678";

#[test]
fn extra_senders_are_deterministic_and_collide_with_nothing() {
    let extra = extra_senders(3);
    let numbers: Vec<(&str, &str)> = extra
        .iter()
        .map(|s| (s.display_phone_number.as_str(), s.phone_number_id.as_str()))
        .collect();
    assert_eq!(
        numbers,
        [
            ("+15550003001", "1000000003"),
            ("+15550003002", "1000000004"),
            ("+15550003003", "1000000005"),
        ]
    );
    assert!(extra.iter().all(|s| s.waba_id == WABA));
    assert_eq!(extra_senders(3), extra, "the same every time");

    let all = extra_senders(u32::MAX);
    assert_eq!(all.len(), MAX_EXTRA_SENDERS as usize, "capped");
    let mut numbers: Vec<&str> = all.iter().map(|s| s.display_phone_number.as_str()).collect();
    let mut ids: Vec<&str> = all.iter().map(|s| s.phone_number_id.as_str()).collect();
    numbers.extend(seeded_senders().iter().map(|s| s.display_phone_number));
    ids.extend(seeded_senders().iter().map(|s| s.phone_number_id));
    let count = numbers.len();
    numbers.sort_unstable();
    numbers.dedup();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(
        (numbers.len(), ids.len()),
        (count, count),
        "no number or id is used twice"
    );
    assert!(
        all.iter().all(|s| s.display_phone_number.len() == 12),
        "E.164 +1 numbers"
    );
}

#[tokio::test]
async fn without_the_setting_only_the_seeded_senders_are_served() {
    let sim = spawn_simulator().await;
    let (status, error) = sim.send("1000000003", &hello_world(CUSTOMER, "t")).await;
    assert_graph_error(status, &error, 400, 100);
}

#[tokio::test]
async fn extra_senders_send_report_and_receive_like_the_seeded_ones() {
    let sim = spawn_with(
        SimulatorConfig {
            extra_senders: 8,
            ..test_config()
        },
        0,
    )
    .await;
    let last = extra_senders(8).pop().unwrap();
    assert_eq!(last.phone_number_id, "1000000010");

    let (status, body) = sim
        .send(&last.phone_number_id, &hello_world(CUSTOMER, "extra"))
        .await;
    assert_eq!(status, 200, "{body}");
    let wamid = body["messages"][0]["id"].as_str().unwrap().to_owned();
    let statuses = sim.receiver.statuses_of(&wamid, 2).await;
    assert_eq!(statuses.len(), 2);
    let callback = sim
        .receiver
        .received()
        .into_iter()
        .find(|r| r.status().is_some_and(|s| s["id"] == wamid.as_str()))
        .unwrap()
        .json();
    let metadata = &callback["entry"][0]["changes"][0]["value"]["metadata"];
    assert_eq!(callback["entry"][0]["id"], WABA);
    assert_eq!(metadata["phone_number_id"], "1000000010");
    assert_eq!(metadata["display_phone_number"], "15550003008");

    // The seeded senders are unchanged.
    assert_eq!(sim.send(PNID_1, &hello_world(CUSTOMER, "seeded")).await.0, 200);
    // Sending to the extra business number itself is refused like for a seeded one.
    let (status, error) = sim
        .send(&last.phone_number_id, &hello_world("+15550003008", "self"))
        .await;
    assert_graph_error(status, &error, 400, 131021);
    // Inbound messages reach an extra number and open its service window.
    let (status, body) = sim.inbound(CUSTOMER, "+15550003008", "hi").await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = sim.send(&last.phone_number_id, &text(CUSTOMER, "reply")).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn the_throughput_limit_applies_to_each_extra_sender_alone() {
    let sim = spawn_with(
        SimulatorConfig {
            throughput_per_sender: 3,
            extra_senders: 2,
            ..test_config()
        },
        0,
    )
    .await;
    let [first, second] = <[_; 2]>::try_from(extra_senders(2)).unwrap();
    for i in 0..3 {
        let (status, body) = sim
            .send(&first.phone_number_id, &hello_world(CUSTOMER, &format!("m{i}")))
            .await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, error) = sim
        .send(&first.phone_number_id, &hello_world(CUSTOMER, "m3"))
        .await;
    assert_graph_error(status, &error, 429, 130429);
    // Every other sender, extra or seeded, has its own bucket.
    assert_eq!(
        sim.send(&second.phone_number_id, &hello_world(CUSTOMER, "other"))
            .await
            .0,
        200
    );
    assert_eq!(sim.send(PNID_1, &hello_world(CUSTOMER, "seeded")).await.0, 200);
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    assert_eq!(
        sim.send(&first.phone_number_id, &hello_world(CUSTOMER, "later"))
            .await
            .0,
        200,
        "refilled"
    );
}
