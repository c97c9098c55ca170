-- The send path a message went out on (cloud_api or marketing_messages), written when it is submitted;
-- NULL until then, and for messages submitted before Herald knew of the Marketing Messages API.
ALTER TABLE messages ADD COLUMN route TEXT NULL CHECK (route IN ('cloud_api', 'marketing_messages'));
