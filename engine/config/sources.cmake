# Sources of engine/config (owned by that folder).
