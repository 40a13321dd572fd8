# Sources of engine/train (owned by that folder).
