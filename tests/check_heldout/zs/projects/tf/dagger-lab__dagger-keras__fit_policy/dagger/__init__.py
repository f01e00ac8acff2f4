from .expert import LineFollowEnv, scripted_expert  # noqa: F401
