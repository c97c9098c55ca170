-- Fair claiming (postgres): a claim takes each sender's oldest due jobs, at most a fair share per sender, so one
-- sender's backlog no longer fills every batch. The claim walks the senders with open jobs and reads each
-- one's jobs in order from this index; done and failed jobs (the ever-growing history) are not in it.
CREATE INDEX outbox_open_by_sender ON outbox (sender_id, available_at, id) WHERE state IN ('pending', 'in_flight');
