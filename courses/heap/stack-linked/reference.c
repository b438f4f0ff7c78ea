#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct frame {
    int value;
    struct frame *below;
};

static struct frame *top = NULL;
static int depth = 0;

void push(int value)
{
    struct frame *f = malloc(sizeof(struct frame));
    f->value = value;
    f->below = top;
    top = f;
    depth++;
}

int pop(int *out)
{
    struct frame *f = top;
    if (f == NULL)
        return 0;
    *out = f->value;
    top = f->below;
    free(f);
    depth--;
    return 1;
}

int main(void)
{
    char cmd[16];
    int v;

    while (scanf("%15s", cmd) == 1) {
        if (strcmp(cmd, "push") == 0) {
            if (scanf("%d", &v) == 1)
                push(v);
        } else if (strcmp(cmd, "pop") == 0) {
            if (pop(&v))
                printf("%d\n", v);
            else
                printf("empty\n");
        } else if (strcmp(cmd, "peek") == 0) {
            if (top != NULL)
                printf("%d\n", top->value);
            else
                printf("empty\n");
        }
    }
    printf("size %d:", depth);
    while (pop(&v))
        printf(" %d", v);
    printf("\n");
    return 0;
}
