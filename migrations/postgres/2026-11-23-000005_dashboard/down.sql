DROP INDEX webhook_deliveries_by_event;
DROP TABLE dashboard_sessions;
DROP TABLE owners;
