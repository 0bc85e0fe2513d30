"""Where a run failed: failure sites, their notes, and mapping errors to the user's lines."""
