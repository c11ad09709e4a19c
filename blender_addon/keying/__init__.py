"""Writing trajectories back as keyframes on the bodies' actions, and taking them off again."""
