//! `WindowStore`: service windows per (sender, recipient), only moving forward.

use super::{Ports, new_organization_with_sender};
use crate::fixtures::{SIMULATOR_SENDER_2, at, phone, sender};
use chrono::TimeDelta;
use herald_domain::contact::Recipient;
use herald_domain::window::ServiceWindow;

/// None before any inbound; a newer inbound moves the window, an older or equal one does not; windows
/// are kept per sender and recipient.
pub async fn windows_only_move_forward(ports: Ports) {
    let (org, first_sender) = new_organization_with_sender(&ports, "starter").await;
    let second_sender = sender(org.id, SIMULATOR_SENDER_2, false);
    ports
        .accounts
        .add_sender(&second_sender)
        .await
        .expect("add_sender");
    let (recipient, other_recipient): (Recipient, Recipient) =
        (phone("+15551234567").into(), phone("+15557654321").into());
    let window_at = |last_inbound_at| ServiceWindow {
        organization_id: org.id,
        sender_id: first_sender.id,
        recipient: recipient.clone(),
        last_inbound_at,
    };
    let read = || {
        let ports = ports.clone();
        let recipient = recipient.clone();
        async move {
            ports
                .windows
                .window(&org.id, &first_sender.id, &recipient)
                .await
                .expect("window")
        }
    };

    assert_eq!(read().await, None, "no window before any inbound message");
    ports
        .windows
        .record_inbound(&window_at(at(0)))
        .await
        .expect("record_inbound");
    assert_eq!(
        read().await,
        Some(window_at(at(0))),
        "the recorded window reads back exactly"
    );

    let newer = at(3_600) + TimeDelta::microseconds(1);
    ports
        .windows
        .record_inbound(&window_at(newer))
        .await
        .expect("record_inbound");
    assert_eq!(
        read().await,
        Some(window_at(newer)),
        "a newer inbound moves the window forward"
    );

    ports
        .windows
        .record_inbound(&window_at(at(1_800)))
        .await
        .expect("record_inbound");
    assert_eq!(
        read().await,
        Some(window_at(newer)),
        "an older inbound must not move the window back"
    );
    ports
        .windows
        .record_inbound(&window_at(newer))
        .await
        .expect("record_inbound");
    assert_eq!(
        read().await,
        Some(window_at(newer)),
        "the same inbound again changes nothing"
    );

    let by_other_sender = ports
        .windows
        .window(&org.id, &second_sender.id, &recipient)
        .await
        .expect("window");
    assert_eq!(by_other_sender, None, "a window is per sender number");
    let to_other_recipient = ports
        .windows
        .window(&org.id, &first_sender.id, &other_recipient)
        .await
        .expect("window");
    assert_eq!(to_other_recipient, None, "a window is per recipient");

    // A person who writes by user id alone has a window of that id, apart from any number's.
    let user = Recipient::parse("US.13491208655302741918").expect("user id");
    let by_user = ServiceWindow {
        recipient: user.clone(),
        ..window_at(at(2_000))
    };
    ports
        .windows
        .record_inbound(&by_user)
        .await
        .expect("record_inbound");
    let read_user = ports
        .windows
        .window(&org.id, &first_sender.id, &user)
        .await
        .expect("window");
    assert_eq!(read_user, Some(by_user), "a window is kept by user id too");
    assert_eq!(
        read().await.map(|w| w.recipient),
        Some(recipient.clone()),
        "the number's window is its own"
    );
}
