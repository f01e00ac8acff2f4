from sac.agent import SACAgent
from sac.envs import make_env
from sac.replay import Replay
