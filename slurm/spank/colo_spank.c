/*
 * colo_spank.c — colo's SPANK plug-in for Slurm (docs/slurm.md).
 *
 * Loaded through plugstack.conf:
 *   required /usr/lib/colo/colo_spank.so socket=/run/colo/colod.sock \
 *       preload=/usr/lib/colo/libcolo_preload.so
 *
 * Options (srun, sbatch and #SBATCH lines, salloc; registered with
 * spank_option_register, which sbatch and salloc need):
 *   --colo-class=high|best-effort   the class the job asks for
 *   --colo-profile=NAME             the workload profile colo plans it as
 * In srun/sbatch/salloc the values go into the job-control environment
 * (COLO_CLASS, COLO_PROFILE), which job_submit.lua reads.
 *
 * In each task (slurmstepd), for a job that has GPUs (Slurm set
 * CUDA_VISIBLE_DEVICES) or asked for a class, it sets the variables
 * `colo run` sets: COLO_SOCKET, LD_PRELOAD (colo's interposer first),
 * COLO_CLASS; and COLO_JOB_ID, COLO_STEP_ID (a number, or "batch",
 * "extern", "interactive"). CUDA_VISIBLE_DEVICES stays as
 * Slurm set it from the GPUs it allocated.
 *
 * The class is a request. COLO_CLASS is the class the controller GRANTED:
 * job_submit.lua writes "colo-class=high" or "colo-class=best-effort" into
 * the job's AdminComment, which only an operator can change; the plug-in
 * reads it back from slurmctld (slurm_load_job). A job that asked for high
 * and was not granted it gets best-effort and one line on its stderr
 * saying so. colod's own grants (class_grants.h) still apply on top.
 * No grant can be read (slurmctld unreachable, no AdminComment) means
 * best-effort.
 */
#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

SPANK_PLUGIN(colo, 1);

#define COLO_VALUE_MAX 256

static char requested_class[32] = "";
static char requested_profile[COLO_VALUE_MAX] = "";
static char socket_path[COLO_VALUE_MAX] = "/run/colo/colod.sock";
static char preload_path[COLO_VALUE_MAX] = "/usr/lib/colo/libcolo_preload.so";

static int OnClass(int val, const char *optarg, int remote) {
  (void)val;
  (void)remote;
  if (optarg == NULL ||
      (strcmp(optarg, "high") != 0 && strcmp(optarg, "best-effort") != 0)) {
    slurm_error("colo: --colo-class must be high or best-effort, not '%s'",
                optarg ? optarg : "");
    return -1;
  }
  snprintf(requested_class, sizeof(requested_class), "%s", optarg);
  return 0;
}

static int OnProfile(int val, const char *optarg, int remote) {
  (void)val;
  (void)remote;
  if (optarg == NULL || optarg[0] == '\0' ||
      strlen(optarg) >= sizeof(requested_profile) ||
      strpbrk(optarg, " \t\n\"\\;") != NULL) {
    slurm_error(
        "colo: --colo-profile needs a profile name (no spaces, "
        "quotes or ';')");
    return -1;
  }
  snprintf(requested_profile, sizeof(requested_profile), "%s", optarg);
  return 0;
}

static struct spank_option class_option = {
    "colo-class",
    "CLASS",
    "colo priority class to ask for: high or best-effort (granted by the "
    "operator's configuration)",
    1,
    0,
    OnClass};
static struct spank_option profile_option = {
    "colo-profile",
    "NAME",
    "workload profile colo plans this job as (see colo serve's profiles)",
    1,
    0,
    OnProfile};

/* Reads "key=value" arguments from plugstack.conf. */
static int ParseArgs(int ac, char **av) {
  for (int i = 0; i < ac; ++i) {
    char *target = NULL;
    const char *value = NULL;
    if (strncmp(av[i], "socket=", 7) == 0) {
      target = socket_path;
      value = av[i] + 7;
    } else if (strncmp(av[i], "preload=", 8) == 0) {
      target = preload_path;
      value = av[i] + 8;
    } else {
      slurm_error(
          "colo: unknown plugstack.conf argument '%s' (expected "
          "socket=PATH or preload=PATH)",
          av[i]);
      return -1;
    }
    if (value[0] != '/' || strlen(value) >= COLO_VALUE_MAX) {
      slurm_error(
          "colo: plugstack.conf argument '%s' needs an absolute "
          "path shorter than %d bytes",
          av[i], COLO_VALUE_MAX);
      return -1;
    }
    snprintf(target, COLO_VALUE_MAX, "%s", value);
  }
  return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av) {
  if (spank_option_register(sp, &class_option) != ESPANK_SUCCESS ||
      spank_option_register(sp, &profile_option) != ESPANK_SUCCESS) {
    slurm_error("colo: cannot register --colo-class/--colo-profile");
    return -1;
  }
  return ParseArgs(ac, av);
}

/* srun, sbatch, salloc: hand the options to the controller. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  if (spank_remote(sp)) return 0;
  if (requested_class[0] != '\0')
    spank_job_control_setenv(sp, "COLO_CLASS", requested_class, 1);
  if (requested_profile[0] != '\0')
    spank_job_control_setenv(sp, "COLO_PROFILE", requested_profile, 1);
  return 0;
}

/*
 * The class the controller granted, from the job's AdminComment
 * ("colo-class=high; ..."): 1 high, 0 best-effort. `why` gets the rest of
 * the comment (the controller's reason), if any.
 */
static int GrantedHigh(uint32_t job_id, char *why, size_t why_len) {
  job_info_msg_t *msg = NULL;
  int high = 0;
  why[0] = '\0';
  if (slurm_load_job(&msg, job_id, SHOW_DETAIL) != SLURM_SUCCESS ||
      msg == NULL) {
    snprintf(why, why_len, "the job's grant could not be read from slurmctld");
    return 0;
  }
  if (msg->record_count > 0 && msg->job_array[0].admin_comment != NULL) {
    const char *c = msg->job_array[0].admin_comment;
    const char *tag = strstr(c, "colo-class=");
    if (tag != NULL) {
      high = strncmp(tag + 11, "high", 4) == 0 &&
             (tag[15] == '\0' || tag[15] == ';' || tag[15] == ' ');
      const char *rest = strchr(tag, ';');
      if (rest != NULL) {
        rest += 1;
        while (*rest == ' ') ++rest;
        snprintf(why, why_len, "%s", rest);
      }
    }
  } else {
    snprintf(why, why_len, "the controller recorded no grant for this job");
  }
  slurm_free_job_info_msg(msg);
  return high;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  if (!spank_remote(sp)) return 0;
  char gpus[COLO_VALUE_MAX];
  const int has_gpus = spank_getenv(sp, "CUDA_VISIBLE_DEVICES", gpus,
                                    sizeof(gpus)) == ESPANK_SUCCESS;
  if (!has_gpus && requested_class[0] == '\0') return 0;

  uint32_t job_id = 0, step_id = 0;
  spank_get_item(sp, S_JOB_ID, &job_id);
  spank_get_item(sp, S_JOB_STEPID, &step_id);
  char number[32];
  snprintf(number, sizeof(number), "%u", job_id);
  spank_setenv(sp, "COLO_JOB_ID", number, 1);
  /* The batch script's step has an id of its own (a large constant):
   * name it as Slurm's tools do. */
  if (step_id == SLURM_BATCH_SCRIPT) {
    snprintf(number, sizeof(number), "batch");
  } else if (step_id == SLURM_EXTERN_CONT) {
    snprintf(number, sizeof(number), "extern");
  } else if (step_id == SLURM_INTERACTIVE_STEP) {
    snprintf(number, sizeof(number), "interactive");
  } else {
    snprintf(number, sizeof(number), "%u", step_id);
  }
  spank_setenv(sp, "COLO_STEP_ID", number, 1);
  spank_setenv(sp, "COLO_SOCKET", socket_path, 1);

  char preload[4 * COLO_VALUE_MAX];
  char old[3 * COLO_VALUE_MAX];
  if (spank_getenv(sp, "LD_PRELOAD", old, sizeof(old)) == ESPANK_SUCCESS &&
      old[0] != '\0' && strstr(old, preload_path) == NULL) {
    snprintf(preload, sizeof(preload), "%s:%s", preload_path, old);
  } else {
    snprintf(preload, sizeof(preload), "%s", preload_path);
  }
  spank_setenv(sp, "LD_PRELOAD", preload, 1);

  char why[512];
  const int high = GrantedHigh(job_id, why, sizeof(why));
  spank_setenv(sp, "COLO_CLASS", high ? "high" : "best-effort", 1);
  if (strcmp(requested_class, "high") == 0 && !high) {
    uint32_t task = 0;
    spank_get_item(sp, S_TASK_GLOBAL_ID, &task);
    /* One line per job, from its first task. */
    if (task == 0) {
      fprintf(stderr,
              "colo: --colo-class=high was not granted (%s); this job runs "
              "best-effort\n",
              why[0] != '\0' ? why : "no reason recorded");
      fflush(stderr);
    }
  }
  return 0;
}
