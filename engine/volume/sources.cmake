# Sources of engine/volume (owned by that folder).
