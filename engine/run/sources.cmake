# Sources of engine/run (owned by that folder).
