# Sources of engine/models (owned by that folder).
