#include <stdio.h>
#include <stdlib.h>

struct node {
    int val;
    struct node *next;
};

struct node *delete_all(struct node *head, int target)
{
    struct node *cur;
    struct node *tmp;

    while (head != NULL && head->val == target) {
        tmp = head;
        head = head->next;
        free(tmp);
    }
    cur = head;
    while (cur != NULL && cur->next != NULL) {
        if (cur->next->val == target) {
            tmp = cur->next;
            free(tmp);
            cur->next = tmp->next;
        } else {
            cur = cur->next;
        }
    }
    return head;
}

int main(void)
{
    int n, i, x, target;
    struct node *head = NULL, *tail = NULL, *p;

    scanf("%d", &n);
    for (i = 0; i < n; i++) {
        scanf("%d", &x);
        p = malloc(sizeof(struct node));
        p->val = x;
        p->next = NULL;
        if (head == NULL)
            head = p;
        else
            tail->next = p;
        tail = p;
    }
    scanf("%d", &target);
    head = delete_all(head, target);
    if (head == NULL)
        printf("empty");
    for (p = head; p != NULL; p = p->next)
        printf("%s%d", p == head ? "" : " ", p->val);
    printf("\n");
    while (head != NULL) {
        p = head->next;
        free(head);
        head = p;
    }
    return 0;
}
