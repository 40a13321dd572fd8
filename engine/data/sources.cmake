# Sources of engine/data (owned by that folder).
