//! A broadcast's counts by status, which the store keeps as messages are written rather than counting them
//! on each read: whatever path moves a message (the accept, a dispatch outcome, one status report, a batch
//! of reports, a cancel), the counts read back equal a tally of the messages' own statuses.

use super::Ports;
use super::broadcasts::{accept, broadcast_of, policy};
use super::new_organization_with_sender;
use super::outbox::{claim, completion, token};
use super::schedule::cancel_update;
use super::tracking::update;
use crate::fixtures::at;
use herald_domain::broadcast::BroadcastView;
use herald_domain::dispatch::JobOutcome;
use herald_domain::message::MessageStatus;
use herald_domain::organization::Organization;
use herald_domain::ports::{BroadcastAccept, BroadcastAcceptOutcome, BroadcastQuery};
use std::collections::BTreeMap;

/// Each status's number of messages of `broadcast`, read message by message.
async fn tally(
    ports: &Ports,
    org: &Organization,
    broadcast: &BroadcastAccept,
) -> BTreeMap<MessageStatus, u32> {
    let mut tally = BTreeMap::new();
    for m in &broadcast.messages {
        let stored = ports
            .messages
            .message(&org.id, &m.message.id)
            .await
            .expect("read")
            .expect("exists");
        *tally.entry(stored.status).or_insert(0) += 1;
    }
    tally
}

fn counted(view: &BroadcastView) -> BTreeMap<MessageStatus, u32> {
    MessageStatus::ALL
        .iter()
        .map(|s| (*s, view.counts.get(*s)))
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// The list's and the single read's counts of each broadcast agree with the tally of its messages.
async fn assert_counts(ports: &Ports, org: &Organization, broadcasts: &[&BroadcastAccept]) {
    let query = BroadcastQuery {
        limit: 10,
        ..BroadcastQuery::default()
    };
    let page = ports.broadcasts.broadcasts(&org.id, &query).await.expect("list");
    for broadcast in broadcasts {
        let id = broadcast.broadcast.id;
        let listed = page.iter().find(|v| v.broadcast.id == id).expect("listed");
        let alone = ports
            .broadcasts
            .broadcast(&org.id, &id)
            .await
            .expect("read")
            .expect("exists");
        let tally = tally(ports, org, broadcast).await;
        assert_eq!(counted(listed), tally, "the list's counts of {id}");
        assert_eq!(counted(&alone), tally, "the counts of {id} read alone");
    }
}

/// Every writer of a message's status keeps its broadcast's counts: accept, dispatch outcomes, a lone
/// report, a batch of reports (the set-wise path), a cancel; another broadcast's counts are untouched.
pub async fn broadcasts_counts_follow_every_status_writer(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let now = broadcast_of(&org, &sender, 6, None, None);
    let later = broadcast_of(&org, &sender, 3, Some(100), None);
    assert_eq!(accept(&ports, &now).await, BroadcastAcceptOutcome::Accepted);
    assert_eq!(accept(&ports, &later).await, BroadcastAcceptOutcome::Accepted);
    assert_counts(&ports, &org, &[&now, &later]).await;

    ports
        .broadcasts
        .release(&org.id, &now.broadcast.id, &policy(5, 6, None))
        .await
        .expect("release");
    let token = token();
    let claimed = claim(&ports, token, at(5), 100).await;
    assert_eq!(claimed.len(), 6);
    for (i, job) in claimed.iter().take(5).enumerate() {
        let outcome = if i == 4 {
            JobOutcome::Failed {
                error: herald_domain::message::MessageError {
                    code: "recipient_unreachable".to_owned(),
                    title: "Recipient unreachable".to_owned(),
                    detail: "not on the network".to_owned(),
                    network_code: Some(131_026),
                },
            }
        } else {
            JobOutcome::Submitted {
                network_message_id: format!("wamid.COUNTS-{i}"),
                route: herald_domain::marketing::NetworkRoute::CloudApi,
            }
        };
        assert!(
            ports
                .outbox
                .complete_job(&completion(job, token, outcome, at(6)))
                .await
                .expect("complete_job")
        );
    }
    assert_counts(&ports, &org, &[&now, &later]).await;

    let message = |i: usize| &now.messages[i].message;
    ports
        .tracking
        .apply_status(&update(message(0), MessageStatus::Sent, at(7), None))
        .await
        .expect("apply_status");
    assert_counts(&ports, &org, &[&now, &later]).await;

    let batch = vec![
        update(message(1), MessageStatus::Sent, at(8), None),
        update(message(1), MessageStatus::Delivered, at(9), None),
        update(message(2), MessageStatus::Read, at(9), None),
        update(message(0), MessageStatus::Delivered, at(9), None),
        // Late for message 0: recorded, its status stays; the counts too.
        update(message(0), MessageStatus::Sent, at(8), None),
    ];
    ports
        .events
        .apply_statuses_together(&batch)
        .await
        .expect("apply_statuses_together");
    assert_counts(&ports, &org, &[&now, &later]).await;

    let cancelled = [cancel_update(&later.messages[0].message, &org, at(10))];
    assert_eq!(
        ports.schedule.cancel_many(&cancelled).await.expect("cancel_many"),
        1
    );
    assert_counts(&ports, &org, &[&now, &later]).await;
}
