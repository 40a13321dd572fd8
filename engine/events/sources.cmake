# Sources of engine/events (owned by that folder).
